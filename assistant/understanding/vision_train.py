"""Training a vision model (ResNet / Xception backbones, YOLO / darknet, DeepLab, U-Net, Mask R-CNN; "目标检测",
"语义分割") with no language model named: a card question about a network of tens of millions of parameters, where
memory goes to batch size x image size. An expert answers whether the user's card is enough (or which card to buy),
not with the language models the card fine-tunes (capabilities/vision_train.py)."""

from __future__ import annotations

import re

from assistant.understanding.text import _State
from tools.catalog import catalog

_VISION = re.compile(
    r"(?<![a-z0-9])(?:resnet-?\d*|xception|yolo(?:v\d+|x)?|darknet|deeplab\w*|u-?net|(?:mask|faster)[\s-]*r-?cnn|"
    r"efficientnet\w*|mobilenet\w*|vgg-?\d*|detectron2?|mmdet\w*|mmseg\w*|segformer|retinanet)(?![a-z0-9])"
    r"|目标检测|语义分割|图像分割|实例分割|图像分类|检测模型|分割模型",
    re.I,
)
_TRAIN = re.compile(r"(?<![a-z])train\w*|训练|\bmiou\b|\bmap\b|fine-?tun\w*|微调", re.I)


def _vision_training(st: _State) -> None:
    q = st.q
    if q.model or q.params_b or q.model_family or q.is_followup or q.budget or q.monthly_budget:
        return  # a language model named has its own sizing; a budget is recommend's to spend
    if q.gpu_mentions and not set(q.gpu_mentions) & set(catalog()):
        return  # a card the catalog lacks ("GTX 1650 4GB"): no figures of its own to judge it by here
    if _VISION.search(st.t.text) and _TRAIN.search(st.t.text):
        q.intents = ["vision_train"]
        q.unknown_model = None  # "YOLOv8", "ResNet-50" are no language model to ask about
