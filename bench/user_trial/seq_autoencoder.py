# Sensor-trace autoencoder: hand-rolled GRU encoder/decoder (we need custom gating later).
import sys, time, math
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(0)

N_CHANNELS = 16
SEQ_LEN = 48
HIDDEN = 64
LATENT = 16
BATCH = 32
STEPS = 1500


def sensor_batch(batch=BATCH):
    t = torch.linspace(0, 1, SEQ_LEN)
    freq = torch.rand(batch, 1, N_CHANNELS) * 6 + 1
    phase = torch.rand(batch, 1, N_CHANNELS) * 6.28
    x = torch.sin(2 * math.pi * freq * t[None, :, None] + phase)
    return x + 0.1 * torch.randn_like(x)


def gru_update(gx, h, w_hh, b_hh):
    gh = h @ w_hh.t() + b_hh
    rx, zx, nx = gx.chunk(3, -1)
    rh, zh, nh = gh.chunk(3, -1)
    r = torch.sigmoid(rx + rh)
    z = torch.sigmoid(zx + zh)
    n = torch.tanh(nx + r * nh)
    return (1 - z) * n + z * h


class GRUEncoder(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.w_ih = nn.Parameter(torch.randn(3 * n_hidden, n_in) / math.sqrt(n_in))
        self.w_hh = nn.Parameter(torch.randn(3 * n_hidden, n_hidden) / math.sqrt(n_hidden))
        self.b_ih = nn.Parameter(torch.zeros(3 * n_hidden))
        self.b_hh = nn.Parameter(torch.zeros(3 * n_hidden))
        self.n_hidden = n_hidden

    def forward(self, x):
        gx_all = x @ self.w_ih.t() + self.b_ih          # all time steps at once
        h = x.new_zeros(x.size(0), self.n_hidden)
        for t in range(x.size(1)):
            h = gru_update(gx_all[:, t], h, self.w_hh, self.b_hh)
        return h


class GRUDecoder(nn.Module):
    """teacher-forced decoder: input at step t is the (shifted) target at t, plus the latent"""

    def __init__(self, n_in, n_latent, n_hidden):
        super().__init__()
        self.w_ih = nn.Parameter(torch.randn(3 * n_hidden, n_in + n_latent) / math.sqrt(n_in + n_latent))
        self.w_hh = nn.Parameter(torch.randn(3 * n_hidden, n_hidden) / math.sqrt(n_hidden))
        self.b_ih = nn.Parameter(torch.zeros(3 * n_hidden))
        self.b_hh = nn.Parameter(torch.zeros(3 * n_hidden))
        self.init_h = nn.Linear(n_latent, n_hidden)
        self.readout = nn.Linear(n_hidden, n_in)

    def forward(self, latent, targets):
        shifted = torch.cat([torch.zeros_like(targets[:, :1]), targets[:, :-1]], dim=1)
        inputs = torch.cat([shifted, latent[:, None, :].expand(-1, targets.size(1), -1)], dim=-1)
        h = torch.tanh(self.init_h(latent))
        outs = []
        for t in range(targets.size(1)):
            gx = (inputs @ self.w_ih.t() + self.b_ih)[:, t]
            h = gru_update(gx, h, self.w_hh, self.b_hh)
            outs.append(h)
        return self.readout(torch.stack(outs, dim=1))


class SensorAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = GRUEncoder(N_CHANNELS, HIDDEN)
        self.to_latent = nn.Linear(HIDDEN, LATENT)
        self.decoder = GRUDecoder(N_CHANNELS, LATENT, HIDDEN)

    def forward(self, x):
        z = self.to_latent(self.encoder(x))
        return self.decoder(z, x)


model = SensorAE()
optim = torch.optim.Adam(model.parameters(), lr=2e-3)
sched = torch.optim.lr_scheduler.StepLR(optim, step_size=500, gamma=0.5)
tic = time.time()
for it in range(STEPS):
    x = sensor_batch()
    recon = model(x)
    loss = nn.functional.mse_loss(recon, x)
    optim.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optim.step()
    sched.step()
    if it % 100 == 0:
        print(f"it {it:4d} mse {loss.item():.4f} [{time.time() - tic:.0f}s]")
        sys.stdout.flush()
