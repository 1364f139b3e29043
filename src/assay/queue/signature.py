"""Signed review snapshots: human evidence that cannot be typed in.

A snapshot is the only way reviews reach the pipeline, and its JSONL is easy to edit: three review
choices changed and ``"synthetic": true`` dropped turned the reviewer check from fail to pass, and
``fill: random`` written into a hard fill's header made it a PPI sample (issue 31, attack 6). So the
queue server signs each snapshot when it exports it, with an Ed25519 key it holds, and every reader
checks the signature against the project's public key:

- the private key is given to ``assay queue export`` in the environment variable
  :data:`PRIVATE_KEY_ENV` or in a key file outside the repository (``--key-file``); it is never
  written into the project. ``assay queue keygen`` makes a pair;
- the public key is committed as :data:`PUBLIC_KEY_FILE` beside the snapshots
  (``data/reviews/queue_key.pub.json``); ``assay ci --base`` lists a change to it as a policy
  change, so a change that swaps the key and the snapshots together is refused;
- the signature covers every review row, the fill mode, the queue settings and the synthetic flag
  (:func:`signed_bytes`: canonical JSON of the whole snapshot but the signature itself);
- a key file may say ``"synthetic": true``: the demo's key, whose private half is committed
  (``examples/queue_demo_key.synthetic``) so the demo's scripts can re-sign their made-up reviews.
  A snapshot verified with such a key must itself say ``"synthetic": true``, so the committed key
  cannot pass anything off as human evidence.

Ed25519 signatures are deterministic, so exporting the same reviews twice gives the same bytes.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, ValidationError

from assay.core.errors import AssayError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    from assay.queue.snapshot import Snapshot

PRIVATE_KEY_ENV = "ASSAY_QUEUE_SIGNING_KEY"
PUBLIC_KEY_FILE = "queue_key.pub.json"
#: the demo's synthetic signing key (committed on purpose; it can only sign snapshots marked synthetic)
DEMO_KEY = "examples/queue_demo_key.synthetic"


class SignatureProblem(AssayError):
    """A snapshot is unsigned, altered since it was signed, or signed by another key (exit 2)."""

    exit_code = 2


class SigningKeyMissing(AssayError):
    """``assay queue export`` has no private key to sign with (exit 2)."""

    exit_code = 2


class PublicKey(BaseModel):
    """The committed public key file: the raw Ed25519 public key in base64, and whether it is the demo's synthetic key."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    public_key: str
    synthetic: bool = False

    def key(self) -> Ed25519PublicKey:
        """The key object (raises ``ValueError`` when the text is not a 32-byte key in base64)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return Ed25519PublicKey.from_public_bytes(base64.b64decode(self.public_key, validate=True))

    def key_id(self) -> str:
        """A short name for messages: the first 12 characters of the key text."""
        return self.public_key[:12]


def signed_bytes(snapshot: Snapshot) -> bytes:
    """What the signature covers: canonical JSON of the queue line (without ``signature``) and every review row.

    >>> from assay.queue.snapshot import QueueMeta, Snapshot
    >>> meta = QueueMeta(name="q", source="s", fill="hard", seed=1, n_items=0, reviewers_per_item=1,
    ...                  rubric_sha256="x", criteria=[], signature="sig")
    >>> b'"fill":"hard"' in signed_bytes(Snapshot(queue=meta, reviews=[])), b"sig" in signed_bytes(Snapshot(queue=meta, reviews=[]))
    (True, False)
    """
    body = {"queue": snapshot.queue.model_dump(exclude={"signature"}), "reviews": [r.model_dump() for r in snapshot.reviews]}
    return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def private_key_from_text(text: str, where: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from its raw 32 bytes in base64 (what ``assay queue keygen`` writes).

    Raises:
        SigningKeyMissing: the text is not such a key (the key itself is never repeated).
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        return Ed25519PrivateKey.from_private_bytes(base64.b64decode(text.strip(), validate=True))
    except ValueError:
        raise SigningKeyMissing(f"{where} does not hold an Ed25519 private key in base64 (fix: make one with "
                                "`assay queue keygen`)") from None


def load_private_key(key_file: str | None = None) -> Ed25519PrivateKey:
    """The server's signing key: ``key_file`` when given, else the environment variable :data:`PRIVATE_KEY_ENV`.

    Raises:
        SigningKeyMissing: neither is given, or it does not hold a key.
    """
    if key_file:
        try:
            return private_key_from_text(Path(key_file).read_text(encoding="utf-8"), key_file)
        except OSError as error:
            raise SigningKeyMissing(f"--key-file {key_file}: cannot be read ({error.strerror})") from None
    text = os.environ.get(PRIVATE_KEY_ENV, "")
    if not text:
        raise SigningKeyMissing(f"no signing key: a snapshot is signed by the queue server at export (fix: set "
                                f"{PRIVATE_KEY_ENV} or pass --key-file FILE, from `assay queue keygen`)")
    return private_key_from_text(text, PRIVATE_KEY_ENV)


def public_key_of(private: Ed25519PrivateKey, synthetic: bool = False) -> PublicKey:
    """The public key file's content for ``private``."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return PublicKey(public_key=base64.b64encode(raw).decode("ascii"), synthetic=synthetic)


def sign(snapshot: Snapshot, private: Ed25519PrivateKey) -> Snapshot:
    """A copy of ``snapshot`` whose queue line carries the signature over :func:`signed_bytes`."""
    signature = base64.b64encode(private.sign(signed_bytes(snapshot))).decode("ascii")
    return snapshot.model_copy(update={"queue": snapshot.queue.model_copy(update={"signature": signature})})


def public_key_path(snapshot_path: str | Path) -> Path:
    """The public key file that vouches for ``snapshot_path``: :data:`PUBLIC_KEY_FILE` in the same folder."""
    return Path(snapshot_path).parent / PUBLIC_KEY_FILE


def read_public_key(path: str | Path) -> PublicKey:
    """The committed public key file.

    Raises:
        SignatureProblem: missing, not JSON, or not a key (the message names the file and the fix).
    """
    try:
        found = PublicKey.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
        found.key()
        return found
    except FileNotFoundError:
        raise SignatureProblem(f"{path}: missing, so no review snapshot can be checked (fix: commit the queue "
                               "server's public key, from `assay queue keygen`)") from None
    except (OSError, ValueError, ValidationError) as error:
        first = str(error).splitlines()[0][:200]
        raise SignatureProblem(f"{path}: not a public key file ({first}) (fix: write it with `assay queue keygen`)") from None


def check_signature(snapshot: Snapshot, path: str | Path, public: PublicKey) -> None:
    """Refuse a snapshot the key did not sign as it is, or a non-synthetic one under a synthetic key.

    Raises:
        SignatureProblem: unsigned, altered after signing (or signed by another key), or claiming to
            be human evidence while signed with the committed synthetic demo key.
    """
    from cryptography.exceptions import InvalidSignature

    where = f"{path}:1"
    if not snapshot.queue.signature:
        raise SignatureProblem(f"{where}: field 'signature': the snapshot is unsigned, so its reviews could have been "
                               "typed in (fix: export it again with `assay queue export`, which signs it)")
    try:
        public.key().verify(base64.b64decode(snapshot.queue.signature, validate=True), signed_bytes(snapshot))
    except (InvalidSignature, ValueError):
        raise SignatureProblem(f"{where}: field 'signature': does not match the snapshot under key {public.key_id()}... "
                               f"of {public_key_path(path)}: a review row, the fill, the queue settings or the "
                               "synthetic flag changed after the queue server signed it, or another key signed it "
                               "(fix: export it again from the queue server; never edit a snapshot)") from None
    if public.synthetic and not snapshot.queue.synthetic:
        raise SignatureProblem(f"{where}: field 'synthetic': false, but the snapshot is signed with the synthetic demo "
                               "key, whose private half is public; only synthetic snapshots can be (fix: sign real "
                               "reviews with your queue server's own key, from `assay queue keygen`)")


def verify_snapshot(snapshot: Snapshot, path: str | Path) -> None:
    """:func:`check_signature` with the public key beside ``path`` (:func:`public_key_path`)."""
    check_signature(snapshot, path, read_public_key(public_key_path(path)))
