"""transformers' Trainer as its docs write it: a small BERT classifier built from a config (no
download), a custom head on BertPreTrainedModel, a plain torch Dataset (no `datasets`) of token
ids, TrainingArguments, the default collator, trainer.train(), on the CPU.

    OMP_NUM_THREADS=1 python hf_trainer_docs.py [--max_steps N]    # one thread on a shared CPU

Planted: MeanMaxPool.forward (`pool`) pools the tokens under the attention mask with a Python loop
over the 128 positions; each hidden[:, position] costs a full-size gradient in backward, where
one masked sum and one masked amax do it all.
"""

import argparse
import tempfile

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import Dataset
from transformers import (BertConfig, BertModel, BertPreTrainedModel, Trainer,
                          TrainingArguments)
from transformers.modeling_outputs import SequenceClassifierOutput


class ReviewTokens(Dataset):
    """Synthetic tokenized reviews, padded to max_length, with a binary sentiment label."""

    def __init__(self, size=2048, max_length=128, vocab_size=8000, seed=0):
        generator = torch.Generator().manual_seed(seed)
        self.input_ids = torch.randint(1, vocab_size, (size, max_length), generator=generator)
        lengths = torch.randint(max_length // 4, max_length + 1, (size,), generator=generator)
        self.attention_mask = (torch.arange(max_length) < lengths[:, None]).long()
        self.input_ids *= self.attention_mask
        self.labels = (self.input_ids[:, 0] % 2).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return {"input_ids": self.input_ids[index], "attention_mask": self.attention_mask[index],
                "labels": self.labels[index]}


class MeanMaxPool(nn.Module):
    """Mean and maximum of the token states the attention mask keeps, side by side."""

    def forward(self, hidden, attention_mask):
        mask = attention_mask.to(hidden.dtype)
        total = hidden.new_zeros(hidden.size(0), hidden.size(-1))
        peak = hidden.new_full((hidden.size(0), hidden.size(-1)), float("-inf"))
        for position in range(hidden.size(1)):
            keep = mask[:, position, None]
            total = total + hidden[:, position] * keep
            peak = torch.maximum(peak, hidden[:, position].masked_fill(keep == 0, float("-inf")))
        return torch.cat([total / mask.sum(1, keepdim=True), peak], dim=-1)


class BertPooledClassifier(BertPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.bert = BertModel(config, add_pooling_layer=False)
        self.pool = MeanMaxPool()
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(2 * config.hidden_size, config.num_labels)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.bert(input_ids, attention_mask=attention_mask).last_hidden_state
        logits = self.classifier(self.dropout(self.pool(hidden, attention_mask)))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return SequenceClassifierOutput(loss=loss, logits=logits)


def main(extra_callbacks=()):
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_steps", type=int, default=2000)
    args = parser.parse_args()
    config = BertConfig(vocab_size=8000, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=256, max_position_embeddings=128,
                        num_labels=2)
    model = BertPooledClassifier(config)
    with tempfile.TemporaryDirectory(prefix="hf-trainer-docs-") as output_dir:
        training_args = TrainingArguments(
            output_dir=output_dir, per_device_train_batch_size=8, learning_rate=5e-4,
            max_steps=args.max_steps, warmup_steps=100, weight_decay=0.01, logging_steps=50,
            save_strategy="no", report_to="none", use_cpu=True, seed=0)
        trainer = Trainer(model=model, args=training_args, train_dataset=ReviewTokens(),
                          callbacks=list(extra_callbacks))
        trainer.train()


if __name__ == "__main__":
    main()
