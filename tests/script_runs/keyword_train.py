"""A causal language model trained the way Hugging Face users train one, in a plain loop: a
tokenizer-like collate that returns a dict, the model called with keyword arguments only
(`model(**batch)`), the loss read from its ModelOutput, gradient clipping. Nothing in it knows
about advisor; the model is tiny_lm's, slow in blocks.1.mlp.

    python keyword_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch

from tiny_lm import TinyLM, token_rows


def collate(rows):
    ids = torch.stack(rows)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids, dtype=torch.float32),
            "labels": ids.clone()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    loader = torch.utils.data.DataLoader(token_rows(), batch_size=6, shuffle=True,
                                         collate_fn=collate)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model.train()
    step = 0
    while step < args.steps:
        for batch in loader:
            outputs = model(**batch)
            outputs.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            if step == args.steps:
                break
    print("trained %d steps, loss %.3f" % (step, outputs.loss.item()), flush=True)


if __name__ == "__main__":
    main()
