# A user's GPT-2 fine-tune as transformers users write it: keyword call, ModelOutput, AdamW.
import torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
torch.set_num_threads(1)
config = GPT2Config(n_layer=4, n_head=4, n_embd=256, vocab_size=5000, n_positions=256)
model = GPT2LMHeadModel(config)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids = torch.randint(0, 5000, (8, 128))
for step in range(400):
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
