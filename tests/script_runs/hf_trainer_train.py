"""A causal language model trained with transformers.Trainer, as its users train one: a Dataset
of token rows, TrainingArguments, trainer.train(); nothing in it knows about advisor. The Trainer
takes any module whose forward returns the loss in a dict, and calls it with keyword arguments;
the model is tiny_lm's, slow in blocks.1.mlp.

    python hf_trainer_train.py [--steps N] [--workers N] [--tag TEXT]
"""

import argparse
import tempfile

import torch
import transformers

from tiny_lm import TinyLM, token_rows


class Rows(torch.utils.data.Dataset):
    def __init__(self):
        self.rows = token_rows()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        return {"input_ids": self.rows[index], "labels": self.rows[index]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory(prefix="hf-trainer-") as out:
        training = transformers.TrainingArguments(
            output_dir=out, per_device_train_batch_size=6, max_steps=args.steps,
            learning_rate=3e-4, logging_steps=10**6, save_strategy="no", report_to=[],
            use_cpu=True, dataloader_num_workers=args.workers, disable_tqdm=True)
        trainer = transformers.Trainer(model=TinyLM(output="dict"), args=training,
                                       train_dataset=Rows())
        trainer.train()
    print("trained", flush=True)


if __name__ == "__main__":
    main()
