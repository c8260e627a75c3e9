"""Label textures drawn in code (OpenCV), so a camera sees 'Coca-Cola' on the bottle and 'Fanta' on the can."""
from __future__ import annotations

import cv2
import numpy as np


def label_texture(text: str, rgba: tuple[float, float, float, float], width: int = 256,
                  height: int = 128) -> np.ndarray:
    """An RGB uint8 image: the object's colour with a white band carrying its label in dark letters."""
    base = (np.array(rgba[:3]) * 255).astype(np.uint8)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = base
    band = (int(height * 0.28), int(height * 0.72))
    img[band[0]:band[1]] = (245, 245, 240)
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = 1.0
    (tw, th), _ = cv2.getTextSize(text, font, scale, 2)
    scale = min(1.6, (width * 0.9) / max(tw, 1))  # fit the label across the band
    (tw, th), _ = cv2.getTextSize(text, font, scale, 2)
    org = ((width - tw) // 2, (height + th) // 2)
    cv2.putText(img, text, org, font, scale, (20, 20, 20), 2, cv2.LINE_AA)
    return img
