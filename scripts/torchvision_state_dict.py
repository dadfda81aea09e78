#!/usr/bin/env python3
"""Writes the parameter and buffer names and shapes of a torchvision model's state_dict as JSON:
the golden that tests/config/block_expansion_test.cpp holds a block-written config against, so
that its checkpoints load into PyTorch by name.

    /usr/bin/python3 scripts/torchvision_state_dict.py resnet18_cifar > tests/config/resnet18_cifar_state_dict.json

resnet18_cifar: torchvision's resnet18 with the CIFAR stem (conv1 3x3 stride 1, no max pool), 10
classes. num_batches_tracked is left out: the runner keeps no such counter."""
import json
import sys

import torch
import torchvision


def resnet18_cifar():
    model = torchvision.models.resnet18(num_classes=10)
    model.conv1 = torch.nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = torch.nn.Identity()
    return model


MODELS = {"resnet18_cifar": resnet18_cifar}

if __name__ == "__main__":
    model = MODELS[sys.argv[1]]()
    names = [{"name": name, "shape": list(tensor.shape)}
             for name, tensor in model.state_dict().items()
             if not name.endswith("num_batches_tracked")]
    lines = [json.dumps(entry) for entry in names]
    sys.stdout.write('{"model": "%s", "torchvision": "%s", "tensors": [\n  %s\n]}\n'
                     % (sys.argv[1], torchvision.__version__, ",\n  ".join(lines)))
