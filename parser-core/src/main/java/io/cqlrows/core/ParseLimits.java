package io.cqlrows.core;

/**
 * Limits applied to untrusted input, in the style of Jackson's {@code StreamReadConstraints}.
 * Immutable; start from {@link #defaults()} and change what you need with {@link #builder()}.
 *
 * <p>Counts and lengths are always checked against the bytes actually present before anything is
 * allocated; these limits add an upper bound on top of that, so that a frame that is large but well
 * formed cannot make the parser build an absurd type tree or object graph.
 *
 * <p>One option is not a limit but a policy for bad input: {@link #replaceMalformedText()}.
 */
public final class ParseLimits {
  /** Default {@link #maxFrameBodyLength()}: 256 MiB, the protocol's own frame limit. */
  public static final int DEFAULT_MAX_FRAME_BODY_LENGTH = 256 * 1024 * 1024;

  /**
   * Default {@link #maxDecompressedLength()}: 64 MiB. A compressed page that decompresses to more
   * is rare (5,000 rows, the drivers' default page size, of more than 13 KB each), and a 1 MB frame
   * declaring 255 MB then costs at most 64 MiB, which a JVM of 128 MiB survives beside the rest of
   * a replay.
   */
  public static final int DEFAULT_MAX_DECOMPRESSED_LENGTH = 64 * 1024 * 1024;

  /** Default {@link #maxColumns()}. */
  public static final int DEFAULT_MAX_COLUMNS = 65_535;

  /** Default {@link #maxTypeDepth()}: deeper than any schema Cassandra accepts in practice. */
  public static final int DEFAULT_MAX_TYPE_DEPTH = 64;

  /** Default {@link #maxTypeNameLength()} for custom class-name strings, in characters. */
  public static final int DEFAULT_MAX_TYPE_NAME_LENGTH = 65_535;

  /** Default {@link #maxCollectionElements()} per list, set or map value. */
  public static final int DEFAULT_MAX_COLLECTION_ELEMENTS = 16 * 1024 * 1024;

  /** Default {@link #maxVectorDimension()}. */
  public static final int DEFAULT_MAX_VECTOR_DIMENSION = 1 << 20;

  /** Default {@link #maxUdtFields()} per UDT or tuple type. */
  public static final int DEFAULT_MAX_UDT_FIELDS = 32_767;

  private static final ParseLimits DEFAULTS = new Builder().build();

  private final int maxFrameBodyLength;
  private final int maxDecompressedLength;
  private final int maxColumns;
  private final int maxTypeDepth;
  private final int maxTypeNameLength;
  private final int maxCollectionElements;
  private final int maxVectorDimension;
  private final int maxUdtFields;
  private final boolean replaceMalformedText;

  private ParseLimits(Builder b) {
    this.maxFrameBodyLength = b.maxFrameBodyLength;
    this.maxDecompressedLength = b.maxDecompressedLength;
    this.maxColumns = b.maxColumns;
    this.maxTypeDepth = b.maxTypeDepth;
    this.maxTypeNameLength = b.maxTypeNameLength;
    this.maxCollectionElements = b.maxCollectionElements;
    this.maxVectorDimension = b.maxVectorDimension;
    this.maxUdtFields = b.maxUdtFields;
    this.replaceMalformedText = b.replaceMalformedText;
  }

  /** The default limits (see the {@code DEFAULT_*} constants). */
  public static ParseLimits defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these limits. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxFrameBodyLength = maxFrameBodyLength;
    b.maxDecompressedLength = maxDecompressedLength;
    b.maxColumns = maxColumns;
    b.maxTypeDepth = maxTypeDepth;
    b.maxTypeNameLength = maxTypeNameLength;
    b.maxCollectionElements = maxCollectionElements;
    b.maxVectorDimension = maxVectorDimension;
    b.maxUdtFields = maxUdtFields;
    b.replaceMalformedText = replaceMalformedText;
    return b;
  }

  /**
   * Largest envelope body accepted, in bytes: the body length a v3/v4 frame header or a v5 envelope
   * header declares (for a compressed v3/v4 frame, the compressed length), and a decompressed v3/v4
   * body. The decoders of parser-netty check a declared length before they wait for the body; since
   * the length is all that delimits a frame, one above this limit fails the connection.
   */
  public int maxFrameBodyLength() {
    return maxFrameBodyLength;
  }

  /**
   * Largest number of bytes decompression may make for one envelope, in bytes. It bounds:
   *
   * <ul>
   *   <li>a compressed v3/v4 frame body: the uncompressed length it declares (LZ4's 4-byte length,
   *       Snappy's preamble), checked before the output buffer is allocated; the body is also
   *       bounded by {@link #maxFrameBodyLength()};
   *   <li>a v5 envelope gathered from several segments: what decompression adds to it, the sum over
   *       its LZ4-compressed segments of each payload's length less its compressed length, checked
   *       as each segment arrives, before it is kept. The bytes that came over the wire (segments
   *       stored uncompressed, the compressed length of the others) add nothing: the peer had to
   *       send them, and {@link #maxFrameBodyLength()} bounds the envelope. So a page that
   *       compresses a little (float vectors: 10 to 20%) passes whatever its size, and one that
   *       inflates 255 times stops at this limit. One segment's payload is at most 128 KiB by the
   *       format, so envelopes in a single segment are not counted, nor are bodies streamed a
   *       segment at a time, which the decoder does not hold.
   * </ul>
   *
   * <p>A compressed body is small on the wire: LZ4 expands up to 255 times, so a 1 MB frame, well
   * under the frame limit, can hold 255 MB. Above this limit only that response fails; its
   * compressed bytes are delimited by the frame or its segments, so the connection goes on.
   */
  public int maxDecompressedLength() {
    return maxDecompressedLength;
  }

  /** Largest {@code columns_count} accepted in result or prepared metadata. */
  public int maxColumns() {
    return maxColumns;
  }

  /** Deepest type nesting accepted, both in {@code [option]} trees and custom class names. */
  public int maxTypeDepth() {
    return maxTypeDepth;
  }

  /** Longest custom type class name accepted, in characters. */
  public int maxTypeNameLength() {
    return maxTypeNameLength;
  }

  /** Largest element count of one list, set or map value. */
  public int maxCollectionElements() {
    return maxCollectionElements;
  }

  /** Largest vector dimension accepted in a type. */
  public int maxVectorDimension() {
    return maxVectorDimension;
  }

  /** Largest number of fields of one UDT or components of one tuple type. */
  public int maxUdtFields() {
    return maxUdtFields;
  }

  /**
   * Whether malformed text in cells decodes with replacement characters instead of failing. Default
   * {@code false}: a {@code text} (or {@code varchar}) value that is not valid UTF-8 (a lone
   * continuation byte, a cut sequence, an overlong form, a surrogate, a code point above U+10FFFF:
   * what the JDK's UTF-8 decoder reports as malformed), or an {@code ascii} value with a byte above
   * 0x7F, is a {@link CqlParseException.Reason#INVALID_VALUE} naming the first bad byte, at any
   * nesting depth (collections, UDTs, tuples, vectors), as the Apache Cassandra Java driver rejects
   * it. Cassandra validates text when it is written, so such a value means corruption or a hostile
   * server.
   *
   * <p>{@code true} decodes each malformed sequence, and each non-ASCII byte of an {@code ascii}
   * value, as U+FFFD, without an error: for reading damaged captures. A U+FFFD that is encoded in
   * the value ({@code EF BF BD}) is valid text and decodes as itself either way. Names in the
   * metadata (keyspaces, tables, columns, UDT names and fields) always decode with replacement.
   */
  public boolean replaceMalformedText() {
    return replaceMalformedText;
  }

  @Override
  public String toString() {
    return "ParseLimits{maxFrameBodyLength="
        + maxFrameBodyLength
        + ", maxDecompressedLength="
        + maxDecompressedLength
        + ", maxColumns="
        + maxColumns
        + ", maxTypeDepth="
        + maxTypeDepth
        + ", maxTypeNameLength="
        + maxTypeNameLength
        + ", maxCollectionElements="
        + maxCollectionElements
        + ", maxVectorDimension="
        + maxVectorDimension
        + ", maxUdtFields="
        + maxUdtFields
        + ", replaceMalformedText="
        + replaceMalformedText
        + '}';
  }

  /** Builds {@link ParseLimits}; every limit must be positive. */
  public static final class Builder {
    private int maxFrameBodyLength = DEFAULT_MAX_FRAME_BODY_LENGTH;
    private int maxDecompressedLength = DEFAULT_MAX_DECOMPRESSED_LENGTH;
    private int maxColumns = DEFAULT_MAX_COLUMNS;
    private int maxTypeDepth = DEFAULT_MAX_TYPE_DEPTH;
    private int maxTypeNameLength = DEFAULT_MAX_TYPE_NAME_LENGTH;
    private int maxCollectionElements = DEFAULT_MAX_COLLECTION_ELEMENTS;
    private int maxVectorDimension = DEFAULT_MAX_VECTOR_DIMENSION;
    private int maxUdtFields = DEFAULT_MAX_UDT_FIELDS;
    private boolean replaceMalformedText;

    private Builder() {}

    /** See {@link ParseLimits#maxFrameBodyLength()}. */
    public Builder maxFrameBodyLength(int value) {
      this.maxFrameBodyLength = positive("maxFrameBodyLength", value);
      return this;
    }

    /** See {@link ParseLimits#maxDecompressedLength()}. */
    public Builder maxDecompressedLength(int value) {
      this.maxDecompressedLength = positive("maxDecompressedLength", value);
      return this;
    }

    /** See {@link ParseLimits#maxColumns()}. */
    public Builder maxColumns(int value) {
      this.maxColumns = positive("maxColumns", value);
      return this;
    }

    /** See {@link ParseLimits#maxTypeDepth()}. */
    public Builder maxTypeDepth(int value) {
      this.maxTypeDepth = positive("maxTypeDepth", value);
      return this;
    }

    /** See {@link ParseLimits#maxTypeNameLength()}. */
    public Builder maxTypeNameLength(int value) {
      this.maxTypeNameLength = positive("maxTypeNameLength", value);
      return this;
    }

    /** See {@link ParseLimits#maxCollectionElements()}. */
    public Builder maxCollectionElements(int value) {
      this.maxCollectionElements = positive("maxCollectionElements", value);
      return this;
    }

    /** See {@link ParseLimits#maxVectorDimension()}. */
    public Builder maxVectorDimension(int value) {
      this.maxVectorDimension = positive("maxVectorDimension", value);
      return this;
    }

    /** See {@link ParseLimits#maxUdtFields()}. */
    public Builder maxUdtFields(int value) {
      this.maxUdtFields = positive("maxUdtFields", value);
      return this;
    }

    /** See {@link ParseLimits#replaceMalformedText()}; default {@code false}. */
    public Builder replaceMalformedText(boolean value) {
      this.replaceMalformedText = value;
      return this;
    }

    /** The immutable limits. */
    public ParseLimits build() {
      return new ParseLimits(this);
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
      }
      return value;
    }
  }
}
