"""A causal language model trained with an accelerate loop, as its users write one: Accelerator,
accelerator.prepare(model, optimizer, loader), accelerator.backward(loss); the model called with
keyword arguments. Nothing in it knows about advisor; the model is tiny_lm's, slow in
blocks.1.mlp.

    python accelerate_train.py [--steps N] [--tag TEXT]
"""

import argparse

import accelerate
import torch

from tiny_lm import TinyLM, causal_lm_batch, token_rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    accelerator = accelerate.Accelerator(cpu=True)
    loader = torch.utils.data.DataLoader(token_rows(), batch_size=6, shuffle=True,
                                         collate_fn=causal_lm_batch)
    model = TinyLM(output="loss")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    step = 0
    while step < args.steps:
        for batch in loader:
            loss = model(**batch)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            step += 1
            if step == args.steps:
                break
    print("trained", flush=True)


if __name__ == "__main__":
    main()
