# A timm model trained as its users write it: create_model, CrossEntropyLoss, AdamW; on the GPU
# where there is one (bench/memory_oracle.py checks the bisection's memory against it there too).
#     timm_train.py [--model resnet18] [--batch 8] [--size 112] [--steps 400]
import argparse

import timm
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="resnet18")
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--size", type=int, default=112)
parser.add_argument("--steps", type=int, default=400)
args = parser.parse_args()
torch.manual_seed(0)
torch.set_num_threads(1)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = timm.create_model(args.model, num_classes=100, img_size=args.size) \
    if args.model.startswith("vit") else timm.create_model(args.model, num_classes=100)
model = model.to(device).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
loss_fn = torch.nn.CrossEntropyLoss()
images = torch.randn(args.batch, 3, args.size, args.size, device=device)
labels = torch.randint(0, 100, (args.batch,), device=device)
for step in range(args.steps):
    loss = loss_fn(model(images), labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
