"""The small causal language model the framework scripts train (keyword_train.py,
hf_trainer_train.py, accelerate_train.py, lightning_train.py), written as Hugging Face models are:
called with keyword arguments, the loss computed inside from `labels`, returned in a ModelOutput-
like dataclass or a dict. One block's MLP is slow on purpose: blocks.1.mlp runs its matmuls ten
times, the line `hidden = self.down(F.gelu(self.up(hidden)))`.
"""

import dataclasses
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

SLOW_BLOCK = 1


@dataclasses.dataclass
class CausalLMOutput:
    loss: Optional[torch.Tensor] = None
    logits: Optional[torch.Tensor] = None


class Mlp(nn.Module):
    def __init__(self, width, repeats):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        self.repeats = repeats

    def forward(self, hidden):
        for _ in range(self.repeats):
            hidden = self.down(F.gelu(self.up(hidden)))
        return hidden


class Block(nn.Module):
    def __init__(self, width, repeats):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = Mlp(width, repeats)

    def forward(self, hidden, attention_mask=None):
        if attention_mask is not None:
            hidden = hidden * attention_mask.unsqueeze(-1)
        return hidden + self.mlp(self.norm(hidden))


def blocks(width, layers):
    return nn.ModuleList([Block(width, 10 if i == SLOW_BLOCK else 1) for i in range(layers)])


class TinyLM(nn.Module):
    """`output`: "dataclass" (a ModelOutput), "dict" (what Trainer accepts from any module) or
    "loss" (the loss tensor alone)."""

    def __init__(self, vocab=128, width=48, layers=3, output="dataclass"):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = blocks(width, layers)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.output = output

    def forward(self, input_ids=None, attention_mask=None, labels=None):
        hidden = self.embed(input_ids)
        for block in self.blocks:
            hidden = block(hidden, attention_mask=attention_mask)
        logits = self.lm_head(hidden)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)),
                               labels[:, 1:].reshape(-1))
        if self.output == "loss":
            return loss
        if self.output == "dict":
            return {"loss": loss, "logits": logits}
        return CausalLMOutput(loss=loss, logits=logits)


def token_rows(size=256, length=32, vocab=128):
    return list(torch.randint(0, vocab, (size, length), generator=torch.Generator().manual_seed(0)))


def causal_lm_batch(rows):
    """A DataLoader's collate for token_rows, as a causal LM's trainers batch: the ids are the
    labels."""
    ids = torch.stack(rows)
    return {"input_ids": ids, "labels": ids}
