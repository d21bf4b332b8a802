"""Real model families as their libraries build them, trained the way their users train them, for
the GPU check's real-model stage (scripts/gpu-check.sh real_models).

Each family gives a model from its library's own config (the GPU machine has no network: random
weights, the architecture as published), a Dataset and collate of the batches its users feed it,
and the call its users make: Hugging Face models by keyword (`model(**batch)`, the loss in the
ModelOutput), timm models positionally with a loss outside. `apply_fix` switches on one fix by
hand, as a performance engineer would, for the by-hand oracle (oracle.py).
"""

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset

class Tokens(Dataset):
    def __init__(self, size, length, vocab):
        self.size, self.length, self.vocab = size, length, vocab

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        return torch.randint(0, self.vocab, (self.length,), generator=generator)


class Images(Dataset):
    def __init__(self, size, classes, side=224):
        self.size, self.classes, self.side = size, classes, side

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        image = torch.randn(3, self.side, self.side, generator=generator)
        return image, int(torch.randint(0, self.classes, (1,), generator=generator))


class JpegImages(Dataset):
    """Photos as a loader meets them: JPEG files decoded, randomly cropped, flipped and normalised
    per item (torchvision's transforms over PIL), the input pipeline of timm's and torchvision's
    ImageNet training. The files are made once, in memory, from smooth random images."""

    def __init__(self, size, classes, distinct=64, side=256):
        import io
        from PIL import Image
        self.size, self.classes = size, classes
        generator = torch.Generator().manual_seed(0)
        self.files = []
        for _ in range(distinct):
            low = torch.rand(3, 8, 8, generator=generator)
            pixels = F.interpolate(low[None], size=(side, side), mode="bilinear")[0]
            array = (pixels.permute(1, 2, 0) * 255).to(torch.uint8).numpy()
            encoded = io.BytesIO()
            Image.fromarray(array).save(encoded, format="JPEG", quality=90)
            self.files.append(encoded.getvalue())
        self.transform = None  # built in the worker that first needs it

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        import io
        from PIL import Image
        from torchvision import transforms
        if self.transform is None:
            self.transform = transforms.Compose([
                transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                transforms.ToTensor(),
                transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
        image = Image.open(io.BytesIO(self.files[index % len(self.files)])).convert("RGB")
        return self.transform(image), index % self.classes


class Audio(Dataset):
    """Log-mel features of 30 s of audio (Whisper's input) and a transcript's tokens."""

    def __init__(self, size, mels, frames, length, vocab):
        self.size, self.mels, self.frames = size, mels, frames
        self.length, self.vocab = length, vocab

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        return (torch.randn(self.mels, self.frames, generator=generator),
                torch.randint(0, self.vocab, (self.length,), generator=generator))


def speech_collate(rows):
    return {"input_features": torch.stack([features for features, _ in rows]),
            "labels": torch.stack([tokens for _, tokens in rows])}


def causal_collate(rows):
    ids = torch.stack(rows)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def masked_collate(rows):
    ids = torch.stack(rows)
    labels = ids.clone()
    labels[:, 1::7] = -100  # a masked-LM batch: most positions ignored, some predicted
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}


def seq2seq_collate(rows):
    ids = torch.stack(rows)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids),
            "labels": ids[:, : ids.shape[1] // 2].clone()}


class Family:
    """One model family: how to build it, what it eats and how it is called."""

    def __init__(self, name, build, dataset, collate, batch, keyword, attention=False, conv=False):
        self.name, self.build, self.dataset, self.collate = name, build, dataset, collate
        self.batch, self.keyword = batch, keyword
        self.attention = attention  # has an attention implementation to choose (SDPA)
        self.conv = conv            # convolutional: channels_last applies

    def loss(self, model, batch):
        if self.keyword:
            return model(**batch).loss
        images, labels = batch
        return F.cross_entropy(model(images), labels)


def _hf(config_name, model_name, **config):
    # The attention the baseline runs is "eager", which materialises the scores, as training
    # scripts written before SDPA do and as a model loaded with attn_implementation="eager";
    # the oracle's sdpa-attention builds it with "sdpa".
    def build(attention="eager"):
        import transformers
        cfg = getattr(transformers, config_name)(**config)
        cfg._attn_implementation = attention
        return getattr(transformers, model_name)(cfg)
    return build


def _timm(name, **kwargs):
    def build(attention=None):
        import timm
        return timm.create_model(name, **kwargs)
    return build


FAMILIES = {f.name: f for f in (
    Family("gpt2", _hf("GPT2Config", "GPT2LMHeadModel"), lambda: Tokens(4096, 512, 50257),
           causal_collate, 8, keyword=True, attention=True),
    # GPT-2's shape at a size a CPU trains in seconds: the memory check's own test on a machine
    # without a GPU (bench/real_models/memory_check.py --family gpt2-tiny).
    Family("gpt2-tiny", _hf("GPT2Config", "GPT2LMHeadModel", n_layer=2, n_head=2, n_embd=64,
                            vocab_size=1000, n_positions=128, bos_token_id=0, eos_token_id=0),
           lambda: Tokens(256, 64, 1000), causal_collate, 4, keyword=True, attention=True),
    Family("llama", _hf("LlamaConfig", "LlamaForCausalLM", vocab_size=32000, hidden_size=1024,
                        intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
                        num_key_value_heads=16, max_position_embeddings=1024),
           lambda: Tokens(4096, 512, 32000), causal_collate, 8, keyword=True, attention=True),
    Family("bert", _hf("BertConfig", "BertForMaskedLM"), lambda: Tokens(8192, 256, 30522),
           masked_collate, 32, keyword=True, attention=True),
    # transformers 5's T5Config has no decoder start token of its own (t5-small's config names
    # 0, the pad token): without it the model cannot shift the labels into decoder inputs.
    Family("t5", _hf("T5Config", "T5ForConditionalGeneration", d_model=512, d_ff=2048,
                     num_layers=6, num_heads=8, vocab_size=32128, decoder_start_token_id=0,
                     pad_token_id=0),
           lambda: Tokens(8192, 256, 32128), seq2seq_collate, 32, keyword=True),
    Family("vit", _timm("vit_base_patch16_224"), lambda: Images(8192, 1000), None, 64,
           keyword=False),
    Family("resnet", _timm("resnet50"), lambda: Images(8192, 1000), None, 128, keyword=False,
           conv=True),
    Family("convnext", _timm("convnext_tiny"), lambda: Images(8192, 1000), None, 64,
           keyword=False, conv=True),
    Family("swin", _timm("swin_tiny_patch4_window7_224"), lambda: Images(8192, 1000), None, 64,
           keyword=False),
    # whisper-tiny's sizes.
    Family("whisper", _hf("WhisperConfig", "WhisperForConditionalGeneration", d_model=384,
                          encoder_layers=4, decoder_layers=4, encoder_attention_heads=6,
                          decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536,
                          vocab_size=51865, num_mel_bins=80),
           lambda: Audio(2048, 80, 3000, 64, 51865), speech_collate, 32, keyword=True,
           attention=True),
    Family("efficientnet", _timm("efficientnet_b0"), lambda: JpegImages(8192, 1000), None, 128,
           keyword=False, conv=True),
)}


def fixes_for(family):
    """The fixes that apply to `family`, as the oracle measures them."""
    fixes = ["bf16-autocast", "tf32-matmul", "torch-compile"]
    if family.attention:  # transformers models: their attn_implementation, as the recipe sets it
        fixes.append("hf-sdpa-attention")
    if family.conv:
        fixes += ["channels-last", "cudnn-benchmark"]
    return fixes


def build_model(family, fix, device):
    """The model with `fix` applied by hand where the fix is the model's ("" for none)."""
    model = family.build(attention="sdpa") if fix == "hf-sdpa-attention" else family.build()
    model = model.to(device)
    if fix == "channels-last":
        model = model.to(memory_format=torch.channels_last)
    if fix == "activation-checkpointing":
        # The library's own switch, as its users turn it on: every block of the model is
        # checkpointed, the instances advisor names among them.
        if hasattr(model, "gradient_checkpointing_enable"):  # transformers
            model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False})
        else:  # timm
            model.set_grad_checkpointing(True)
    return model
