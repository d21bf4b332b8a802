"""Lightning as its docs write it: a LightningModule (self.log, a scheduler from
configure_optimizers), a LightningDataModule whose DataLoader has workers, Trainer with callbacks
and the default logger and progress bar, trainer.fit(model, datamodule=dm). It classifies
synthetic 6-channel sensor windows on the CPU.

    OMP_NUM_THREADS=1 python lightning_docs.py [--max_steps N]    # one thread on a shared CPU
    python lightning_docs.py --accelerator gpu                     # on a GPU

Planted: RollingStats.forward (`features`) takes each window's rolling mean and spread with a
Python loop over time steps, 113 slices a batch, where F.avg_pool1d of x and of x * x does it
in a few ops.
"""

import argparse
import math
import tempfile

import torch
import torch.nn.functional as F

try:  # the `lightning` package, or `pytorch-lightning` alone as on the GPU machine
    import lightning as L
    from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
except ImportError:
    import pytorch_lightning as L
    from pytorch_lightning.callbacks import LearningRateMonitor, ModelCheckpoint
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SensorWindows(Dataset):
    def __init__(self, size=4096, channels=6, length=128, classes=8, seed=0):
        generator = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, classes, (size,), generator=generator)
        time = torch.linspace(0, 1, length)
        tone = torch.sin(2 * math.pi * (1 + self.labels.float())[:, None, None] * time)
        self.signals = tone + 0.3 * torch.randn(size, channels, length, generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.signals[index], self.labels[index]


class SensorDataModule(L.LightningDataModule):
    def __init__(self, batch_size=32, num_workers=2):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers

    def setup(self, stage):
        self.train_set = SensorWindows()

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True,
                          num_workers=self.num_workers, persistent_workers=True)


class RollingStats(nn.Module):
    """Rolling mean and standard deviation of each channel over `window` samples."""

    def __init__(self, window=16):
        super().__init__()
        self.window = window

    def forward(self, x):
        means, spreads = [], []
        for start in range(x.size(-1) - self.window + 1):
            chunk = x[..., start:start + self.window]
            means.append(chunk.mean(-1))
            spreads.append(chunk.std(-1))
        return torch.cat([torch.stack(means, -1), torch.stack(spreads, -1)], dim=1)


class ActivityClassifier(L.LightningModule):
    def __init__(self, channels=6, classes=8, width=32, lr=3e-3):
        super().__init__()
        self.save_hyperparameters()
        self.features = RollingStats()
        self.encoder = nn.Sequential(
            nn.Conv1d(2 * channels, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, 2 * width, 5, padding=2), nn.BatchNorm1d(2 * width), nn.ReLU(),
            nn.Conv1d(2 * width, 2 * width, 5, padding=2), nn.BatchNorm1d(2 * width), nn.ReLU())
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x):
        return self.head(self.encoder(self.features(x)).mean(-1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train_loss", loss, prog_bar=True)
        self.log("train_acc", (logits.argmax(-1) == y).float().mean())
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=self.hparams.lr,
                                                        total_steps=self.trainer.max_steps)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}


def main(extra_callbacks=()):
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_steps", type=int, default=2000)
    parser.add_argument("--accelerator", default="cpu")
    args = parser.parse_args()
    L.seed_everything(0)
    with tempfile.TemporaryDirectory(prefix="lightning-docs-") as root:
        trainer = L.Trainer(max_steps=args.max_steps, accelerator=args.accelerator, devices=1,
                            default_root_dir=root, log_every_n_steps=10,
                            callbacks=[ModelCheckpoint(monitor="train_loss"),
                                       LearningRateMonitor(logging_interval="step"),
                                       *extra_callbacks])
        trainer.fit(ActivityClassifier(), datamodule=SensorDataModule())


if __name__ == "__main__":
    main()
