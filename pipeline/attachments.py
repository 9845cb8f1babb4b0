"""A photo or scan of the paper record a change request carries (RULES.md, pepet rule 20).

Only PNG, JPEG, WebP and PDF are taken, recognised by their first bytes (an image must
also decode as one) (a file's name
and the type its browser claims are not trusted: an HTML page renamed ``.png`` is
refused), and no larger than the ``attachment_max_bytes`` setting. The content type
stored is the one the bytes prove, so the dashboard shows an image with ``st.image`` and
offers a PDF as a download with ``application/pdf`` — never anything a browser would run.
"""

from dataclasses import dataclass
from pathlib import PurePath

from pipeline import messages, settings

#: content type -> the file name endings that go with it
TYPES = {
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg"),
    "image/webp": (".webp",),
    "application/pdf": (".pdf",),
}
EXTENSIONS = sorted(e.lstrip(".") for ends in TYPES.values() for e in ends)


class AttachmentRefused(messages.Refused, ValueError):
    """The file cannot be attached; ``render(lang)`` says why in one sentence."""


@dataclass(frozen=True)
class Attachment:
    name: str
    content_type: str
    content: bytes

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")


def sniff(content: bytes) -> str | None:
    """The content type the first bytes prove, or None."""
    if content.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if content.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(content) >= 12 and content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return "image/webp"
    if content.startswith(b"%PDF-"):
        return "application/pdf"
    return None


def safe_name(name: str) -> str:
    """The file's own name without folders or characters a header could trip on."""
    base = PurePath(str(name).replace("\\", "/")).name
    kept = "".join(c for c in base if c.isalnum() or c in "._- ").strip() or "record"
    return kept[:100]


def check(name: str, content: bytes, *, limit: int | None = None) -> Attachment:
    """The attachment, or :class:`AttachmentRefused` naming the file and what to do."""
    shown = safe_name(name)
    limit = int(settings.get("attachment_max_bytes")) if limit is None else limit
    if len(content) > limit:
        raise AttachmentRefused(
            "attachment.size", {"file": shown, "size": len(content), "limit": limit}
        )
    kind = sniff(content)
    if kind is None or not shown.lower().endswith(TYPES[kind]) or not _decodes(kind, content):
        raise AttachmentRefused("attachment.type", {"file": shown})
    return Attachment(name=shown, content_type=kind, content=content)


def _decodes(kind: str, content: bytes) -> bool:
    """An image must be one (its header alone is not enough: the page shows it)."""
    if not kind.startswith("image/"):
        return True
    import io
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a decompression bomb's warning refuses it too
            with Image.open(io.BytesIO(content)) as img:
                fmt = (img.format or "").lower()
                img.verify()
    except Exception:
        return False
    return f"image/{fmt}" == kind
