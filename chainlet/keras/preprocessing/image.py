"""``keras.preprocessing.image``: the image helpers of :mod:`chainlet.keras.image_utils` under
Keras 3's legacy spelling."""
from chainlet.keras.image_utils import (  # noqa: F401
    array_to_img, img_to_array, load_img, save_img, smart_resize)

__all__ = ['array_to_img', 'img_to_array', 'load_img', 'save_img', 'smart_resize']
