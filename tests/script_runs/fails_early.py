"""A training script that fails before its first step (a data path that does not exist)."""
import torch

raise FileNotFoundError("no such data folder: /data/imagenet/train")
