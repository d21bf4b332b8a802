"""Sequence tagging experiment: a tiny transformer encoder behind a small Trainer with callbacks.

    python trainer_encoder.py
"""
import math
import time
from collections import defaultdict

import torch
from torch import nn
from torch.nn import functional as F

CONFIG = {
    "vocab_size": 500,
    "max_len": 64,
    "d_model": 64,
    "n_heads": 4,
    "n_layers": 2,
    "ffn_dim": 128,
    "dropout": 0.1,
    "n_labels": 6,
    "batch_size": 32,
    "lr": 3e-4,
    "warmup_steps": 50,
    "max_steps": 2000,
    "log_every": 50,
    "seed": 1234,
    "threads": 1,
}


# ---------------------------------------------------------------- model

class SimilarityPooling(nn.Module):
    """Pools the tokens weighted by how central each is among the others (mean distance)."""

    def __init__(self, d_model, d_key=16, temperature=1.0):
        super().__init__()
        self.proj = nn.Linear(d_model, d_key)
        self.temperature = temperature

    def forward(self, h, mask):
        z = self.proj(h)
        dists = (z.unsqueeze(2) - z.unsqueeze(1)).pow(2).sum(-1)
        dists = dists.masked_fill(~mask.unsqueeze(1), 0.0)
        centrality = -dists.sum(-1) / mask.sum(-1, keepdim=True) / self.temperature
        centrality = centrality.masked_fill(~mask, float("-inf"))
        weights = centrality.softmax(-1)
        return torch.einsum("bt,btd->bd", weights, h)


class TaggerModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["d_model"], padding_idx=0)
        self.pos_emb = nn.Parameter(torch.zeros(1, cfg["max_len"], cfg["d_model"]))
        layer = nn.TransformerEncoderLayer(
            cfg["d_model"], cfg["n_heads"], cfg["ffn_dim"], cfg["dropout"], batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, cfg["n_layers"])
        self.pool = SimilarityPooling(cfg["d_model"])
        self.head = nn.Sequential(nn.LayerNorm(cfg["d_model"]), nn.Linear(cfg["d_model"], cfg["n_labels"]))

    def forward(self, input_ids, attention_mask):
        h = self.tok_emb(input_ids) + self.pos_emb[:, : input_ids.size(1)]
        h = self.encoder(h, src_key_padding_mask=~attention_mask)
        return self.head(self.pool(h, attention_mask))


# ---------------------------------------------------------------- data

def synthetic_batches(cfg):
    g = torch.Generator().manual_seed(cfg["seed"])
    while True:
        b, t = cfg["batch_size"], cfg["max_len"]
        ids = torch.randint(1, cfg["vocab_size"], (b, t), generator=g)
        lengths = torch.randint(t // 2, t + 1, (b,), generator=g)
        mask = torch.arange(t)[None, :] < lengths[:, None]
        ids = ids.masked_fill(~mask, 0)
        labels = ids[:, 0] % cfg["n_labels"]
        yield {"input_ids": ids, "attention_mask": mask, "labels": labels}


# ---------------------------------------------------------------- trainer

class Callback:
    def on_train_begin(self, trainer): pass
    def on_step_end(self, trainer, logs): pass
    def on_train_end(self, trainer): pass


class LoggingCallback(Callback):
    def __init__(self, every):
        self.every = every
        self.t0 = None

    def on_train_begin(self, trainer):
        self.t0 = time.time()

    def on_step_end(self, trainer, logs):
        if trainer.global_step % self.every == 0:
            rate = trainer.global_step / (time.time() - self.t0)
            print(f"step {trainer.global_step:5d}  loss {logs['loss']:.4f}  {rate:.1f} it/s", flush=True)


class WarmupCosine(Callback):
    def __init__(self, warmup, total):
        self.warmup, self.total = warmup, total

    def on_step_end(self, trainer, logs):
        s = trainer.global_step
        if s < self.warmup:
            scale = s / self.warmup
        else:
            scale = 0.5 * (1 + math.cos(math.pi * (s - self.warmup) / max(1, self.total - self.warmup)))
        for group in trainer.optimizer.param_groups:
            group["lr"] = trainer.cfg["lr"] * scale


class Trainer:
    def __init__(self, model, cfg, callbacks=()):
        self.model = model
        self.cfg = cfg
        self.callbacks = list(callbacks)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)
        self.global_step = 0
        self.history = defaultdict(list)

    def _fire(self, event, *args):
        for cb in self.callbacks:
            getattr(cb, event)(self, *args)

    def compute_loss(self, batch):
        logits = self.model(batch["input_ids"], batch["attention_mask"])
        return F.cross_entropy(logits, batch["labels"])

    def train(self, batches):
        self.model.train()
        self._fire("on_train_begin")
        for batch in batches:
            loss = self.compute_loss(batch)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.global_step += 1
            logs = {"loss": loss.item()}
            self.history["loss"].append(logs["loss"])
            self._fire("on_step_end", logs)
            if self.global_step >= self.cfg["max_steps"]:
                break
        self._fire("on_train_end")


if __name__ == "__main__":
    torch.set_num_threads(CONFIG["threads"])
    torch.manual_seed(CONFIG["seed"])
    model = TaggerModel(CONFIG)
    trainer = Trainer(
        model,
        CONFIG,
        callbacks=[LoggingCallback(CONFIG["log_every"]), WarmupCosine(CONFIG["warmup_steps"], CONFIG["max_steps"])],
    )
    trainer.train(synthetic_batches(CONFIG))
