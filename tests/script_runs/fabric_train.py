"""A causal language model trained with Lightning Fabric, as its docs write the loop: Fabric,
fabric.setup(model, optimizer), fabric.setup_dataloaders(loader), fabric.backward(loss). Fabric
wraps the model in a _FabricModule that holds it twice (the module it calls and the original),
so its instances are named `_forward_module.blocks.1.mlp` by PyTorch. Nothing in it knows about
advisor; the model is tiny_lm's, slow in blocks.1.mlp.

    python fabric_train.py [--steps N] [--tag TEXT]
"""

import argparse

import torch

try:
    import lightning as L
except ImportError:  # the older package name
    import lightning_fabric as L

from tiny_lm import TinyLM, causal_lm_batch, token_rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    fabric = L.Fabric(accelerator="cpu", devices=1)
    fabric.launch()
    loader = torch.utils.data.DataLoader(token_rows(), batch_size=6, shuffle=True,
                                         collate_fn=causal_lm_batch)
    model = TinyLM(output="loss")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(loader)
    step = 0
    while step < args.steps:
        for batch in loader:
            optimizer.zero_grad()
            loss = model(**batch)
            fabric.backward(loss)
            optimizer.step()
            step += 1
            if step == args.steps:
                break
    print("trained", flush=True)


if __name__ == "__main__":
    main()
