"""The four architectures of the protocol, adapted to 28x28 grey and 32x32 colour images.

``build_model(name, num_classes, in_channels, image_size, seed)`` is the one way to make a model.
With a seed the initialization is drawn inside :func:`torch.random.fork_rng`, so the same seed
gives bit-identical weights and the caller's global random state is left exactly as it was.

No model contains dropout or any other layer that draws random numbers during training: such
layers draw from torch's *global* generator, which would break the rule that one seeded
generator per run (see :mod:`pruneaudit.training.loop`) decides everything random in training.
"""

from __future__ import annotations

import torch
from torch import nn
from torchvision.models import VGG, AlexNet, ResNet, resnet18
from torchvision.models.vgg import make_layers

from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int

MODELS: tuple[str, ...] = ("lenet", "alexnet", "vgg11", "resnet18")

#: Image sizes the adaptations below are made for (and tested on).
IMAGE_SIZES: tuple[int, ...] = (28, 32)


class LeNet(nn.Module):
    """LeNet of the protocol: two 3x3 Conv-ReLU-MaxPool(2) blocks (6, 16 maps), FC 120-84-C.

    ReLU follows every layer but the last. The convolutions are unpadded ("valid"), as in the
    PyTorch pruning tutorial's LeNet (3x3 kernels, ``fc1`` on 16x5x5 for 28x28 input): 28 px
    gives 28-26-13-11-5 (400 features), 32 px gives 32-30-15-13-6 (576 features).
    """

    def __init__(self, num_classes: int = 10, in_channels: int = 1, image_size: int = 28):
        super().__init__()
        side = ((image_size - 2) // 2 - 2) // 2
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 6, kernel_size=3),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 16, kernel_size=3),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(16 * side * side, 120),
            nn.ReLU(inplace=True),
            nn.Linear(120, 84),
            nn.ReLU(inplace=True),
            nn.Linear(84, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


def _alexnet(num_classes: int, in_channels: int) -> nn.Module:
    """Small AlexNet: torchvision's ``AlexNet`` frame (features -> avgpool -> classifier).

    Adaptations for 28/32 px: the five convolutions keep AlexNet's order and width ratios
    (1:3:6:4:4) at half its widths (32, 96, 192, 128, 128 maps instead of 64, 192, 384, 256,
    256), with 3x3 stride-1 padded kernels instead of 11/5/3 with stride 4; 2x2 max-pools after
    convolutions 1, 2 and 5 (28 -> 14 -> 7 -> 3; 32 -> 16 -> 8 -> 4); adaptive average pooling
    to 2x2; classifier 512-512-512-C without dropout. torchvision's default PyTorch layer
    initialization is kept.
    """
    model = AlexNet(num_classes=num_classes)
    model.features = nn.Sequential(
        nn.Conv2d(in_channels, 32, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 96, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(96, 192, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(192, 128, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(128, 128, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
    )
    model.avgpool = nn.AdaptiveAvgPool2d((2, 2))
    model.classifier = nn.Sequential(
        nn.Linear(128 * 2 * 2, 512),
        nn.ReLU(inplace=True),
        nn.Linear(512, 512),
        nn.ReLU(inplace=True),
        nn.Linear(512, num_classes),
    )
    return model


def _vgg11(num_classes: int, in_channels: int) -> nn.Module:
    """VGG11 (configuration "A", no batch norm) from torchvision's ``VGG`` and ``make_layers``.

    Adaptations: the first convolution takes ``in_channels``; the fifth max-pool is dropped
    (four pools: 28 -> 1, 32 -> 2 px); adaptive average pooling to 1x1; classifier 512-512-C
    without dropout instead of 25088-4096-4096-C. All layers are initialized as torchvision's
    VGG does (Kaiming-normal fan-out convolutions, N(0, 0.01) linear weights, zero biases).
    """
    cfg: list[int | str] = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512]
    features = make_layers(cfg)
    features[0] = nn.Conv2d(in_channels, 64, kernel_size=3, padding=1)
    model = VGG(features, num_classes=num_classes, init_weights=False)
    model.avgpool = nn.AdaptiveAvgPool2d((1, 1))
    model.classifier = nn.Sequential(
        nn.Linear(512, 512),
        nn.ReLU(inplace=True),
        nn.Linear(512, num_classes),
    )
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)
    return model


def _resnet18(num_classes: int, in_channels: int) -> nn.Module:
    """ResNet18 from ``torchvision.models.resnet18(num_classes=C)``.

    Adaptations (the usual CIFAR stem): the 7x7 stride-2 first convolution becomes a 3x3
    stride-1 padded convolution on ``in_channels`` (Kaiming-normal fan-out, as torchvision
    initializes it) and the stem max-pool is removed, so the four stages see 28/32, 14/16,
    7/8 and 4/4 px before torchvision's adaptive average pool and linear head.
    """
    model: ResNet = resnet18(weights=None, num_classes=num_classes)
    model.conv1 = nn.Conv2d(in_channels, 64, kernel_size=3, stride=1, padding=1, bias=False)
    nn.init.kaiming_normal_(model.conv1.weight, mode="fan_out", nonlinearity="relu")
    model.maxpool = nn.Identity()
    return model


def _build(name: str, num_classes: int, in_channels: int, image_size: int) -> nn.Module:
    if name == "lenet":
        return LeNet(num_classes, in_channels, image_size)
    if name == "alexnet":
        return _alexnet(num_classes, in_channels)
    if name == "vgg11":
        return _vgg11(num_classes, in_channels)
    return _resnet18(num_classes, in_channels)


def build_model(
    name: str,
    num_classes: int,
    in_channels: int,
    image_size: int,
    seed: int | None = None,
) -> nn.Module:
    """A freshly initialized model ``name`` (one of :data:`MODELS`) for square images.

    With ``seed`` the weights are drawn from ``torch.manual_seed(seed)`` inside
    ``torch.random.fork_rng``: identical for the same seed, and the global random state is
    untouched. With ``seed=None`` they are drawn from (and advance) the global generator.
    """
    check_choice("model", name, MODELS)
    check_positive_int("num_classes", num_classes)
    check_positive_int("in_channels", in_channels)
    check_choice("image_size", str(image_size), [str(s) for s in IMAGE_SIZES])
    if seed is None:
        return _build(name, num_classes, in_channels, image_size)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise PruneAuditError(f"seed must be a non-negative integer or None, got {seed!r}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return _build(name, num_classes, in_channels, image_size)


def prunable_parameters(model: nn.Module) -> list[tuple[nn.Module, str]]:
    """``(module, "weight")`` for every Conv2d and Linear layer of ``model``, in module order."""
    return [(m, "weight") for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
