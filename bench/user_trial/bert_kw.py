# Fine-tune a small BERT for sentiment, the way the transformers docs do it (keyword call, out.loss),
# with attention pooling instead of the [CLS] pooler.
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
MAX_LEN = 256
BATCH = 16


class Reviews(Dataset):
    # stands in for tokenizer(texts, padding="max_length", truncation=True, max_length=MAX_LEN)
    def __init__(self, n=4096, vocab=8000):
        g = torch.Generator().manual_seed(0)
        self.input_ids = torch.randint(1000, vocab, (n, MAX_LEN), generator=g)
        self.input_ids[:, 0] = 101  # [CLS]
        lengths = torch.randint(MAX_LEN // 4, MAX_LEN + 1, (n,), generator=g)
        self.attention_mask = (torch.arange(MAX_LEN) < lengths[:, None]).long()
        self.input_ids = self.input_ids * self.attention_mask  # [PAD] is 0
        self.token_type_ids = torch.zeros_like(self.input_ids)
        self.labels = (self.input_ids[:, 1] % 2).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"input_ids": self.input_ids[i], "attention_mask": self.attention_mask[i],
                "token_type_ids": self.token_type_ids[i], "labels": self.labels[i]}


class AttentionPooler(nn.Module):
    # learned attention over the tokens instead of taking [CLS]
    def __init__(self, hidden_size):
        super().__init__()
        self.score = nn.Linear(hidden_size, 1)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        scores = torch.cat([self.score(hidden_states[:, t]) for t in range(hidden_states.size(1))], dim=1)
        weights = scores.softmax(dim=1)
        pooled = sum(weights[:, t, None] * hidden_states[:, t] for t in range(hidden_states.size(1)))
        return torch.tanh(self.dense(pooled))


config = BertConfig(vocab_size=8000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=512, max_position_embeddings=MAX_LEN, num_labels=2)
model = BertForSequenceClassification(config)
model.bert.pooler = AttentionPooler(config.hidden_size)
model.to(device)
model.train()

loader = DataLoader(Reviews(), batch_size=BATCH, shuffle=True, drop_last=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)

for epoch in range(3):
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                    token_type_ids=batch["token_type_ids"], labels=batch["labels"])
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
