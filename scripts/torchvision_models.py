#!/usr/bin/env python3
"""torchvision's own models beside the runner's block-written configs: an implementation the
runner shares nothing with.

    /usr/bin/python3 scripts/torchvision_models.py names resnet18_cifar > tests/config/resnet18_cifar_state_dict.json
        the names and shapes of the model's state_dict (num_batches_tracked left out), the golden
        that tests/config/block_expansion_test.cpp holds configs/resnet18_cifar.yaml against
    /usr/bin/python3 scripts/torchvision_models.py evaluate resnet18_cifar CONFIG CHECKPOINT
        loads a runner checkpoint into the torchvision model (strict: every parameter and buffer)
        and prints {"test_accuracy": ..., "tensors": ...} on the config's test split (CONFIG: a
        report's resolved config, as JSON)

resnet18_cifar: torchvision's resnet18 with the CIFAR stem (conv1 3x3 stride 1, no max pool),
10 classes. mobilenetv2_cifar: torchvision's mobilenet_v2 (width 1.0) with the CIFAR strides
(stride 1 in the stem and the first 24-channel block), 10 classes: configs/mobilenetv2_cifar.yaml
names its layers by stage, so only the shapes, in order, are held against it."""
import json
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def resnet18_cifar():
    model = torchvision.models.resnet18(num_classes=10)
    model.conv1 = torch.nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = torch.nn.Identity()
    return model


def mobilenetv2_cifar():
    model = torchvision.models.mobilenet_v2(num_classes=10)
    model.features[0][0].stride = (1, 1)           # the stem
    model.features[2].conv[1][0].stride = (1, 1)   # the first 24-channel block's depthwise conv
    return model


MODELS = {"resnet18_cifar": resnet18_cifar, "mobilenetv2_cifar": mobilenetv2_cifar}


def names(model):
    entries = [json.dumps({"name": name, "shape": list(tensor.shape)})
               for name, tensor in model.state_dict().items()
               if not name.endswith("num_batches_tracked")]
    sys.stdout.write('{"torchvision": "%s", "tensors": [\n  %s\n]}\n'
                     % (torchvision.__version__, ",\n  ".join(entries)))


def evaluate(model, config_file, checkpoint):
    from load_checkpoint import load_model_state
    from pytorch_peer import accuracy, eval_batch, load_split
    with open(config_file) as f:
        config = json.load(f)
    images, labels = load_split(config["dataset"], False)
    state = load_model_state(checkpoint)
    model.load_state_dict(state, strict=True)
    print(json.dumps({"test_accuracy": accuracy(model, images, labels, config["dataset"],
                                                eval_batch(config)),
                      "tensors": len(state)}))


if __name__ == "__main__":
    command, model = sys.argv[1], MODELS[sys.argv[2]]()
    if command == "names":
        names(model)
    else:
        evaluate(model, sys.argv[3], sys.argv[4])
