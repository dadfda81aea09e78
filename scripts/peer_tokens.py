"""The runner's token kinds for pytorch_peer.py, as timm's VisionTransformer writes them:
to_tokens, class_token, position_embedding, token_select, self_attention (timm's Attention) and
drop_path (timm's DropPath). Parameters carry the runner's tensor names: a class token or
position embedding is a bare parameter named as its layer (timm's cls_token, pos_embed), an
attention's are <layer>.qkv.* and <layer>.proj.*."""
from collections import namedtuple

import torch
import torch.nn as nn

# A token sequence's shape: t tokens of c features (c first, as an image's shape has it).
Tokens = namedtuple("Tokens", "c t")

EMBEDDINGS = ("class_token", "position_embedding")  # bare parameters named as their layer


def to_tokens(x):
    """(N, C, H, W) -> (N, H*W, C), token h*W + w."""
    return x.flatten(2).transpose(1, 2)


def embedding(kind, shape):
    """The learned tensor of a class_token or position_embedding on `shape`, started as timm's
    init_weights starts it."""
    if kind == "class_token":
        p = nn.Parameter(torch.zeros(1, 1, shape.c))
        nn.init.normal_(p, std=1e-6)
        return p, Tokens(shape.c, shape.t + 1)
    p = nn.Parameter(torch.zeros(1, shape.t, shape.c))
    nn.init.trunc_normal_(p, std=0.02, a=-2, b=2)
    return p, shape


def apply_embedding(kind, p, x):
    if kind == "class_token":
        return torch.cat((p.expand(x.shape[0], -1, -1), x), dim=1)
    return x + p


def select(spec, x):
    """token_select: the class token or the mean of the tokens."""
    return x.mean(dim=1) if spec.get("select", "class") == "mean" else x[:, 0]


class Attention(nn.Module):
    """timm's Attention (qkv_bias = `bias`, attn_drop = `dropout`, no proj_drop)."""

    def __init__(self, dim, heads, dropout=0.0, bias=True):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3, bias=bias)
        self.attn_drop = nn.Dropout(dropout)
        self.proj = nn.Linear(dim, dim, bias=bias)

    def forward(self, x):
        n, t, c = x.shape
        qkv = self.qkv(x).reshape(n, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5
        attn = self.attn_drop(attn.softmax(dim=-1))
        return self.proj((attn @ v).transpose(1, 2).reshape(n, t, c))


class DropPath(nn.Module):
    """timm's DropPath: each sample's whole input dropped with probability p in training, the
    kept ones scaled by 1 / (1 - p); the identity in evaluation."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = x.new_empty((x.shape[0],) + (1,) * (x.dim() - 1)).bernoulli_(1 - self.p)
        return x * keep / (1 - self.p)
