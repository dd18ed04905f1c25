package io.cqlrows.netty.internal;

/** The v5 segment header format in use on a connection (native_protocol_v5.spec 2.1 and 2.2). */
public enum SegmentFormat {
  /** 3-byte header word and CRC24: 6 bytes, payload stored as is. */
  UNCOMPRESSED(6),
  /** 5-byte header word and CRC24: 8 bytes, payload an LZ4 block (or stored, if length 0). */
  LZ4(8),
  /**
   * Not known yet (replay): told from the first header, whose CRC24 matches over 3 bytes for the
   * uncompressed format and over 5 bytes for LZ4.
   */
  DETECT(8);

  private final int headerLength;

  SegmentFormat(int headerLength) {
    this.headerLength = headerLength;
  }

  /** Header length including the CRC24 ({@link #DETECT}: the bytes needed to tell). */
  public int headerLength() {
    return headerLength;
  }
}
