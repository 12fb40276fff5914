"""Makes the image fixtures that need Pillow, with their reference pixels, into this folder.

usage: python3 make_pillow_fixtures.py [OUTDIR]      (needs Pillow, and webpmux from the webp package)

The tests do not run this: its output is committed. Every other fixture is made at test time by
the Swift tests themselves (Tests/NetworkKitImageTests/Support/FixtureMaker*.swift). Each file
`<name>.<ext>` gets `<name>.rgba`, Pillow's decode as raw RGBA8 rows.
"""
import os, shutil, subprocess, sys, tempfile
from PIL import Image

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp()


def pattern(mode, w, h, seed):
    """A gradient with a little pseudo-random noise, so codecs have real content to get right."""
    state = seed
    im = Image.new("RGBA", (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            state = (state * 1103515245 + 12345) % 2**31
            px[x, y] = ((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1),
                        (x * y + state % 40) % 256, (x * 7 + y * 3) % 256)
    return im.convert(mode) if mode != "RGBA" else im


def write_reference(name, path):
    with open(os.path.join(out, name + ".rgba"), "wb") as f:
        f.write(Image.open(path).convert("RGBA").tobytes())


# CMYK with an Adobe marker (Pillow writes the values inverted); cjpeg cannot write CMYK.
cmyk = os.path.join(out, "jpeg_cmyk.jpg")
pattern("RGB", 33, 25, 1).convert("CMYK").save(cmyk, quality=95)
write_reference("jpeg_cmyk", cmyk)

# Three full-canvas lossless frames.
frames = [pattern("RGBA", 24, 18, 2), pattern("RGBA", 24, 18, 2).rotate(180),
          pattern("RGBA", 24, 18, 2).transpose(Image.FLIP_LEFT_RIGHT)]
animated = os.path.join(out, "webp_animated.webp")
frames[0].save(animated, save_all=True, append_images=frames[1:], duration=100, loop=0, lossless=True)
write_reference("webp_animated", animated)

# A first frame smaller than the canvas, placed at an offset: the rest of the canvas is transparent.
for name, im in [("frame1", pattern("RGBA", 20, 14, 3)), ("frame2", pattern("RGB", 40, 30, 4))]:
    im.save(os.path.join(work, name + ".webp"), lossless=True)
offset = os.path.join(out, "webp_animated_offset.webp")
subprocess.run(["webpmux", "-frame", os.path.join(work, "frame1.webp"), "+100+10+8",
                "-frame", os.path.join(work, "frame2.webp"), "+100+0+0", "-loop", "0", "-o", offset],
               check=True, stdout=subprocess.DEVNULL)
assert Image.open(offset).size == (40, 30)
write_reference("webp_animated_offset", offset)
shutil.rmtree(work)
