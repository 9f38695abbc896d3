"""Shared pieces of the Python tests: small PyTorch models with known structure."""
import os

import torch
import torch.nn as nn

torch.set_num_threads(2)


def trained_batchnorm(model, seed=0):
    """BatchNorm statistics and affine weights away from their init (ones and zeros), as in a
    trained network: folding them into the convolutions then changes the weights."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            m.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
            m.running_var.copy_(torch.rand(n, generator=g) * 1.5 + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            m.bias.data.copy_(torch.rand(n, generator=g) * 0.4 - 0.2)
    return model


class ConvBnAct(nn.Module):
    """YOLO's basic block: conv, bn, act as attributes (module paths end in .conv / .bn / .act)."""

    def __init__(self, c_in, c_out, k=3, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c_out)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.cv1 = ConvBnAct(c, c, 1)
        self.cv2 = ConvBnAct(c, c, 3)

    def forward(self, x):
        return x + self.cv2(self.cv1(x))


class SPPF(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.cv1 = ConvBnAct(c, c // 2, 1)
        self.m = nn.MaxPool2d(5, 1, 2)
        self.cv2 = ConvBnAct(c * 2, c, 1)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))


class TinyYolo(nn.Module):
    """A small YOLO-like detector: a strided Conv+BN+SiLU backbone with residual bottlenecks and
    SPPF, an upsampling neck with concatenation, 1x1 detection heads at two scales. 11 Conv+BN
    pairs, each module called once."""

    CONV_BN_PAIRS = 11

    def __init__(self, classes=8):
        super().__init__()
        self.backbone = nn.Sequential(ConvBnAct(3, 16, 3, 2), ConvBnAct(16, 32, 3, 2), Bottleneck(32),
                                      ConvBnAct(32, 64, 3, 2), Bottleneck(64), ConvBnAct(64, 64, 3, 2), SPPF(64))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.neck = ConvBnAct(128, 64, 3)
        self.head = nn.ModuleDict({"p4": nn.Conv2d(64, 3 * (5 + classes), 1), "p5": nn.Conv2d(64, 3 * (5 + classes), 1)})

    def forward(self, x):
        b = self.backbone
        x = b[2](b[1](b[0](x)))
        p4 = b[4](b[3](x))
        p5 = b[6](b[5](p4))
        n4 = self.neck(torch.cat([self.up(p5), p4], 1))
        return self.head["p4"](n4), self.head["p5"](p5)


class CheckpointNet(nn.Module):
    """Built to have a gradient-checkpointing candidate: `wide` upsamples 4x and runs three ReLUs,
    cheap per byte but each keeps a 16x-larger activation for backward (~3 MiB of the ~3.3 MiB the
    step saves); `body` is where the compute is (Linear layers on small activations)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.wide = nn.Sequential(nn.Upsample(scale_factor=4), nn.ReLU(), nn.ReLU(), nn.ReLU(), nn.MaxPool2d(4))
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(8 * 16 * 16, 256), nn.ReLU(), nn.Linear(256, 256),
                                  nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.body(self.wide(self.stem(x)))


class PlainNet(nn.Module):
    """The same training task without an activation-heavy block: no checkpointing candidate."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(8 * 16 * 16, 256), nn.ReLU(), nn.Linear(256, 256),
                                  nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.body(self.stem(x))


def train(model, steps, batch=8, sleep_in_forward=0.0):
    """An ordinary CPU training loop (SGD, cross-entropy, random data)."""
    import time
    torch.manual_seed(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(steps):
        x = torch.randn(batch, 3, 16, 16)
        y = torch.randint(0, 10, (batch,))
        out = model(x)
        if sleep_in_forward:
            time.sleep(sleep_in_forward)
        loss = loss_fn(out, y)
        loss.backward()
        opt.step()
        opt.zero_grad()


def real_profiles():
    p = os.environ.get("MSA_REAL_PROFILES", "")
    return p if p and os.path.isdir(p) else None


class CountingNet(nn.Module):
    """A small convnet that counts its forward calls: arguments are checked before any export."""

    def __init__(self):
        super().__init__()
        self.calls = 0
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        self.calls += 1
        return self.head(torch.relu(self.bn1(self.conv1(x))))


class Eigen(nn.Module):
    def forward(self, x):
        return x + torch.linalg.eigvals(x.reshape(-1, 2, 2)).real.sum()


class Unexportable(nn.Module):
    """torch.onnx.export has no ONNX form for aten::linalg_eigvals, called in `inner.1`."""

    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(4, 4), Eigen())

    def forward(self, x):
        return self.inner(x)


def batchnorm_heavy():
    """A 1x1-convolution stack with a BatchNormalization after each convolution: 8 of its 25
    operators are BatchNormalizations, so at small inputs (where PyTorch eager's time is its
    per-operator dispatch) folding them is a speedup well above a loaded machine's noise."""
    layers = [nn.Conv2d(3, 16, 3, padding=1)]
    for _ in range(8):
        layers += [nn.Conv2d(16, 16, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    return trained_batchnorm(nn.Sequential(*layers))
