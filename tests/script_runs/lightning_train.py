"""A model trained with Lightning, as its users train one: a LightningModule with training_step and
configure_optimizers, a DataLoader, Trainer.fit, whose automatic optimization calls the optimizer
with a closure that runs the forward and backward. Nothing in it knows about advisor; its blocks
are tiny_lm's, slow in blocks.1.mlp.

    python lightning_train.py [--steps N] [--tag TEXT]
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    import lightning as L
except ImportError:  # the older package name
    import pytorch_lightning as L

from tiny_lm import blocks


class Classifier(L.LightningModule):
    def __init__(self, width=48, layers=3, classes=10):
        super().__init__()
        self.blocks = blocks(width, layers)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=1))

    def training_step(self, batch, batch_index):
        inputs, labels = batch
        return F.cross_entropy(self(inputs), labels)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4)


def main(model_class=Classifier):
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(512, 32, 48, generator=generator),
                                          torch.randint(0, 10, (512,), generator=generator))
    loader = torch.utils.data.DataLoader(data, batch_size=6, shuffle=True)
    trainer = L.Trainer(max_steps=args.steps, accelerator="cpu", devices=1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    trainer.fit(model_class(), loader)
    print("trained", flush=True)


if __name__ == "__main__":
    main()
