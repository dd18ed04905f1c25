package io.cqlrows.client.live;

import io.cqlrows.netty.frame.Compression;

/** The protocol versions and compressions the live tests run each scenario in. */
enum Combo {
  V4(4, Compression.NONE),
  V4_LZ4(4, Compression.LZ4),
  V5(5, Compression.NONE),
  V5_LZ4(5, Compression.LZ4);

  private final int version;
  private final Compression compression;

  Combo(int version, Compression compression) {
    this.version = version;
    this.compression = compression;
  }

  int version() {
    return version;
  }

  Compression compression() {
    return compression;
  }

  /** {@code v4}, {@code v4-lz4}, {@code v5}, {@code v5-lz4}: for display and file names. */
  @Override
  public String toString() {
    return "v" + version + (compression == Compression.LZ4 ? "-lz4" : "");
  }
}
