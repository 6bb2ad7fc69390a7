"""Build the configured object store from the settings (local directory unless S3 is configured)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from finrpa.config import Settings
from finrpa.objectstore.links import LinkSigner, link_key
from finrpa.objectstore.local import LocalObjectStore
from finrpa.objectstore.port import ObjectStore

if TYPE_CHECKING:
    from finrpa.objectstore.s3 import S3ObjectStore


def uses_s3(settings: Settings) -> bool:
    return settings.object_store == "s3" or (settings.object_store == "auto" and bool(settings.s3_endpoint_url))


def object_store_from_settings(settings: Settings) -> ObjectStore:
    """The S3 adapter when S3 is configured, else the local directory adapter."""
    if uses_s3(settings):
        return s3_store_from_settings(settings)
    return local_store_from_settings(settings)


def local_store_from_settings(settings: Settings) -> LocalObjectStore:
    root = settings.object_store_dir or settings.data_dir / "objects"
    base_url = settings.object_link_base_url or f"http://{settings.host}:{settings.port}"
    signer = LinkSigner(link_key(settings.key("secret_key")))
    return LocalObjectStore(root, signer, base_url=base_url, bucket_prefix=settings.s3_bucket_prefix)


def s3_client(settings: Settings) -> Any:
    """A boto3 S3 client that signs with SigV4 and, for MinIO/Ceph endpoints, uses path-style URLs."""
    import boto3  # imported on first use: boto3 takes a while to load and the embedded setup never needs it
    from botocore.config import Config

    secret = settings.s3_secret_access_key.get_secret_value() if settings.s3_secret_access_key else None
    config = Config(
        signature_version="s3v4",
        s3={"addressing_style": "path" if settings.s3_endpoint_url else "auto"},
        retries={"max_attempts": 3, "mode": "standard"},
        connect_timeout=5,
        read_timeout=30,
        # Newer boto3 adds CRC checksums by default, which some S3-compatible servers reject.
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    return boto3.client(
        "s3",
        endpoint_url=settings.s3_endpoint_url,
        aws_access_key_id=settings.s3_access_key_id,
        aws_secret_access_key=secret,
        region_name=settings.s3_region,
        config=config,
    )


def s3_store_from_settings(settings: Settings) -> S3ObjectStore:
    from finrpa.objectstore.s3 import S3ObjectStore

    return S3ObjectStore(
        s3_client(settings),
        bucket_prefix=settings.s3_bucket_prefix,
        mode=settings.s3_bucket_mode,
        lock_days=settings.s3_object_lock_days,
        region=settings.s3_region,
    )
