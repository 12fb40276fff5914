"""Writes the image fixtures and their reference decodes into a directory.

usage: python3 make_fixtures.py OUTDIR

Every fixture gets `<name>.<ext>` and, when it has a reference, `<name>.rgba` (raw RGBA8 rows
from Pillow, djpeg or dwebp). `manifest.json` lists them for the Swift tests.
"""
import io, json, os, random, struct, subprocess, sys, zlib
from PIL import Image

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
manifest = []
rng = random.Random(1234)


def path(name):
    return os.path.join(out, name)


def pattern(mode, w, h):
    """A gradient with noise, so codecs have real content to get right."""
    im = Image.new("RGBA", (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            px[x, y] = ((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1),
                        (x * y + rng.randrange(40)) % 256, (x * 7 + y * 3) % 256)
    return im.convert(mode) if mode != "RGBA" else im


def add(name, file, mime, reference, w, h, **extra):
    entry = dict(name=name, file=file, mime=mime, reference=reference, width=w, height=h,
                 sourceWidth=extra.pop("sourceWidth", w), sourceHeight=extra.pop("sourceHeight", h),
                 tolerance=extra.pop("tolerance", 0), orientation=extra.pop("orientation", 1),
                 frameCount=extra.pop("frameCount", 1), maxPixelSize=extra.pop("maxPixelSize", None))
    assert not extra, extra
    manifest.append(entry)


def write_rgba(name, im):
    rgba = im.convert("RGBA")
    with open(path(name + ".rgba"), "wb") as f:
        f.write(rgba.tobytes())
    return name + ".rgba", rgba.size


def read_netpbm(data):
    """Parses P5/P6/P7 output of djpeg/dwebp into (w, h, RGBA bytes)."""
    if data.startswith(b"P7"):
        header, _, body = data.partition(b"ENDHDR\n")
        fields = dict(line.split(b" ", 1) for line in header.split(b"\n")[1:] if b" " in line)
        return int(fields[b"WIDTH"]), int(fields[b"HEIGHT"]), body
    tokens, pos = [], 0
    while len(tokens) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        tokens.append(data[start:pos])
    magic, w, h = tokens[0], int(tokens[1]), int(tokens[2])
    body = data[pos + 1:]
    mode = "L" if magic == b"P5" else "RGB"
    return w, h, Image.frombytes(mode, (w, h), body).convert("RGBA").tobytes()


def reference_from_tool(name, args):
    w, h, rgba = read_netpbm(subprocess.run(args, check=True, capture_output=True).stdout)
    with open(path(name + ".rgba"), "wb") as f:
        f.write(rgba)
    return name + ".rgba", w, h


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def raw_png(w, h, color_type, depth, rows, interlace=0):
    """A PNG from already-packed scanlines (filter byte 0 added here); Pillow cannot write
    16-bit RGBA or interlaced files."""
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, interlace)
    body = b"".join(b"\x00" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(body)) + png_chunk(b"IEND", b"")


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def interlaced_rows(im):
    w, h = im.size
    data = im.tobytes()
    rows = []
    for x0, y0, dx, dy in ADAM7:
        if x0 >= w or y0 >= h:
            continue
        for y in range(y0, h, dy):
            rows.append(b"".join(data[(y * w + x) * 4:(y * w + x) * 4 + 4] for x in range(x0, w, dx)))
    return rows


# ---- PNG: Pillow decodes the reference ----
for name, mode in [("png_rgb8", "RGB"), ("png_rgba8", "RGBA"), ("png_gray8", "L"), ("png_gray_alpha", "LA")]:
    im = pattern(mode, 37, 23)
    im.save(path(name + ".png"))
    ref, _ = write_rgba(name, Image.open(path(name + ".png")))
    add(name, name + ".png", "image/png", ref, 37, 23)

palette = pattern("RGB", 29, 17).quantize(16)
palette.info["transparency"] = bytes([0, 128] + [255] * 14)
palette.save(path("png_palette_trns.png"), transparency=bytes([0, 128] + [255] * 14))
ref, _ = write_rgba("png_palette_trns", Image.open(path("png_palette_trns.png")))
add("png_palette_trns", "png_palette_trns.png", "image/png", ref, 29, 17)

source = pattern("RGBA", 35, 19)
with open(path("png_interlaced.png"), "wb") as f:
    f.write(raw_png(35, 19, 6, 8, interlaced_rows(source), interlace=1))
ref, _ = write_rgba("png_interlaced", source)
add("png_interlaced", "png_interlaced.png", "image/png", ref, 35, 19)

# 16-bit: every 8-bit value v stored as v * 257, so the expected 8-bit result is v.
wide = source.tobytes()
rows16 = [b"".join(struct.pack(">H", wide[i] * 257) for i in range(y * 35 * 4, (y + 1) * 35 * 4)) for y in range(19)]
with open(path("png_rgba16.png"), "wb") as f:
    f.write(raw_png(35, 19, 6, 16, rows16))
add("png_rgba16", "png_rgba16.png", "image/png", ref, 35, 19, tolerance=1)

gray16 = pattern("L", 21, 13)
g = gray16.tobytes()
with open(path("png_gray16.png"), "wb") as f:
    f.write(raw_png(21, 13, 0, 16, [b"".join(struct.pack(">H", g[y * 21 + x] * 257) for x in range(21)) for y in range(13)]))
ref, _ = write_rgba("png_gray16", gray16)
add("png_gray16", "png_gray16.png", "image/png", ref, 21, 13, tolerance=1)

big_png = pattern("RGB", 200, 120)
big_png.save(path("png_thumb.png"))
add("png_thumb", "png_thumb.png", "image/png", None, 50, 30, sourceWidth=200, sourceHeight=120, maxPixelSize=50)

# A valid header claiming 100 000 × 100 000 pixels, with a token IDAT.
with open(path("png_huge_header.png"), "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + png_chunk(b"IEND", b""))

# ---- JPEG: djpeg decodes the reference (same libjpeg-turbo, so byte for byte) ----
pattern("RGB", 61, 47).save(path("jpeg_source.ppm"))
subprocess.run(["cjpeg", "-quality", "90", "-outfile", path("jpeg_baseline.jpg"), path("jpeg_source.ppm")], check=True)
subprocess.run(["cjpeg", "-quality", "85", "-progressive", "-outfile", path("jpeg_progressive.jpg"), path("jpeg_source.ppm")], check=True)
subprocess.run(["cjpeg", "-quality", "90", "-grayscale", "-outfile", path("jpeg_gray.jpg"), path("jpeg_source.ppm")], check=True)
for name in ["jpeg_baseline", "jpeg_progressive", "jpeg_gray"]:
    ref, w, h = reference_from_tool(name, ["djpeg", "-pnm", path(name + ".jpg")])
    add(name, name + ".jpg", "image/jpeg", ref, w, h)

exif = Image.Exif()
exif[0x0112] = 6
pattern("RGB", 40, 30).save(path("jpeg_exif6.jpg"), quality=90, exif=exif.tobytes())
ref, w, h = reference_from_tool("jpeg_exif6", ["djpeg", "-pnm", path("jpeg_exif6.jpg")])
add("jpeg_exif6", "jpeg_exif6.jpg", "image/jpeg", ref, w, h, orientation=6)

exif_left = Image.Exif()
exif_left[0x0112] = 8
pattern("RGB", 16, 16).save(path("jpeg_exif8.jpg"), quality=90, exif=exif_left.tobytes())
ref, w, h = reference_from_tool("jpeg_exif8", ["djpeg", "-pnm", path("jpeg_exif8.jpg")])
add("jpeg_exif8", "jpeg_exif8.jpg", "image/jpeg", ref, w, h, orientation=8)

# CMYK with an Adobe marker (inverted values): Pillow is the reference, within rounding.
pattern("RGB", 33, 25).convert("CMYK").save(path("jpeg_cmyk.jpg"), quality=95)
ref, _ = write_rgba("jpeg_cmyk", Image.open(path("jpeg_cmyk.jpg")))
add("jpeg_cmyk", "jpeg_cmyk.jpg", "image/jpeg", ref, 33, 25, tolerance=2)

# DCT-scaled decodes: maxPixelSize equal to the scaled size, compared with djpeg -scale.
pattern("RGB", 200, 152).save(path("jpeg_large.ppm"))
subprocess.run(["cjpeg", "-quality", "90", "-outfile", path("jpeg_large.jpg"), path("jpeg_large.ppm")], check=True)
for fraction, max_size in [("1/8", 25), ("1/2", 100), ("3/8", 75)]:
    name = "jpeg_scaled_" + fraction.replace("/", "_")
    ref, w, h = reference_from_tool(name, ["djpeg", "-scale", fraction, "-pnm", path("jpeg_large.jpg")])
    add(name, "jpeg_large.jpg", "image/jpeg", ref, w, h, sourceWidth=200, sourceHeight=152, maxPixelSize=max_size)
add("jpeg_thumb", "jpeg_large.jpg", "image/jpeg", None, 20, 15, sourceWidth=200, sourceHeight=152, maxPixelSize=20)

# A progressive file whose last scan is repeated 600 times: refused past 500 scans.
data = open(path("jpeg_progressive.jpg"), "rb").read()
last_scan = data.rindex(b"\xff\xda")
open(path("jpeg_many_scans.jpg"), "wb").write(data[:last_scan] + data[last_scan:-2] * 600 + b"\xff\xd9")

# SOF0 rewritten to claim 60 000 × 60 000.
data = bytearray(open(path("jpeg_baseline.jpg"), "rb").read())
sof = data.index(b"\xff\xc0")
data[sof + 5:sof + 9] = struct.pack(">HH", 60000, 60000)
open(path("jpeg_huge_header.jpg"), "wb").write(bytes(data))

# ---- JPEG at 1/8: every layout the fast path takes, and two it must leave to libjpeg ----
# Listed in eighth.json as {"file", "fast"}; the tests compare its bytes with libjpeg's.
eighth = []
layouts = [("420", []), ("444", ["-sample", "1x1"]), ("422", ["-sample", "2x1"]), ("440", ["-sample", "1x2"]),
           ("411", ["-sample", "4x1"]), ("mixed", ["-sample", "2x2,1x1,2x2"]), ("restart1", ["-restart", "1"]),
           ("restart2b", ["-sample", "2x1", "-restart", "2B"]), ("rgb", ["-rgb"]), ("gray", ["-grayscale"]),
           ("gray_restart", ["-grayscale", "-restart", "1"]), ("q100", ["-quality", "100"]),
           ("q5", ["-quality", "5"]), ("optimized", ["-optimize"])]
for w, h in [(9, 7), (64, 48), (203, 157), (640, 480)]:
    source = path(f"eighth_{w}x{h}.ppm")
    pattern("RGB", w, h).save(source)
    for name, args in layouts + [("progressive", ["-progressive"]), ("arithmetic", ["-arithmetic"])]:
        file = f"eighth_{name}_{w}x{h}.jpg"
        subprocess.run(["cjpeg", *args, "-outfile", path(file), source], check=True, stderr=subprocess.DEVNULL)
        eighth.append(dict(file=file, fast=name not in ("progressive", "arithmetic")))
with open(path("eighth.json"), "w") as f:
    json.dump(eighth, f, indent=1)

# ---- WebP: dwebp decodes the reference ----
pattern("RGB", 45, 31).save(path("webp_source.png"))
pattern("RGBA", 45, 31).save(path("webp_source_alpha.png"))
for name, args in [("webp_lossy", ["-q", "80", path("webp_source.png")]),
                   ("webp_lossless", ["-lossless", path("webp_source_alpha.png")]),
                   ("webp_alpha", ["-q", "70", "-alpha_q", "100", path("webp_source_alpha.png")])]:
    subprocess.run(["cwebp", "-quiet", *args, "-o", path(name + ".webp")], check=True)
    ref, w, h = reference_from_tool(name, ["dwebp", "-quiet", path(name + ".webp"), "-pam", "-o", "-"])
    add(name, name + ".webp", "image/webp", ref, w, h)

pattern("RGB", 160, 100).save(path("webp_large.png"))
subprocess.run(["cwebp", "-quiet", "-q", "80", path("webp_large.png"), "-o", path("webp_large.webp")], check=True)
ref, w, h = reference_from_tool("webp_scaled", ["dwebp", "-quiet", path("webp_large.webp"), "-resize", "40", "25", "-pam", "-o", "-"])
add("webp_scaled", "webp_large.webp", "image/webp", ref, w, h, sourceWidth=160, sourceHeight=100, maxPixelSize=40)

frames = [pattern("RGBA", 24, 18), pattern("RGBA", 24, 18).rotate(180), pattern("RGBA", 24, 18).transpose(Image.FLIP_LEFT_RIGHT)]
frames[0].save(path("webp_animated.webp"), save_all=True, append_images=frames[1:], duration=100, loop=0, lossless=True)
ref, _ = write_rgba("webp_animated", Image.open(path("webp_animated.webp")))
add("webp_animated", "webp_animated.webp", "image/webp", ref, 24, 18, frameCount=3)

# Animated, with a first frame smaller than the canvas and placed at an offset: the rest of
# the canvas is transparent. Pillow (libwebp's WebPAnimDecoder) is the reference.
pattern("RGBA", 20, 14).save(path("webp_offset_frame1.png"))
pattern("RGB", 40, 30).save(path("webp_offset_frame2.png"))
for name in ["webp_offset_frame1", "webp_offset_frame2"]:
    subprocess.run(["cwebp", "-quiet", "-lossless", path(name + ".png"), "-o", path(name + ".webp")], check=True)
subprocess.run(["webpmux", "-frame", path("webp_offset_frame1.webp"), "+100+10+8", "-frame", path("webp_offset_frame2.webp"),
                "+100+0+0", "-loop", "0", "-o", path("webp_animated_offset.webp")], check=True, stdout=subprocess.DEVNULL)
ref, size = write_rgba("webp_animated_offset", Image.open(path("webp_animated_offset.webp")))
assert size == (40, 30), size
add("webp_animated_offset", "webp_animated_offset.webp", "image/webp", ref, 40, 30, frameCount=2)

with open(path("manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
