package io.cqlrows.netty.frame;

import io.cqlrows.core.CqlException;
import io.cqlrows.core.CqlParseException;
import java.util.Locale;
import java.util.Objects;

/**
 * A frame, segment or connection byte stream that cannot be accepted: what was wrong ({@link
 * #reason()}), how bad it is ({@link #connectionLevel()}), and where ({@link #streamId()}, {@link
 * #offset()} in the connection's inbound bytes, the {@link #structure()} found there).
 *
 * <ul>
 *   <li><b>Connection-level</b>: the byte stream itself is broken (a header that is not a CQL
 *       header, a declared body length over the limit, a CRC mismatch, a corrupt compressed block,
 *       input ending inside a frame). Nothing after it can be trusted; the decoders discard all
 *       further input, and the connection should be closed. {@link #streamId()} is the header's
 *       stream id when the header was read ({@link Reason#FRAME_TOO_LARGE}), else -1 (or the stream
 *       of a response whose streamed body the break cut off).
 *   <li><b>Frame-local</b>: one well-delimited frame is unusable (a malformed prelude, an undefined
 *       opcode, a compressed body that would decompress to more than the limit, a body the RESULT
 *       parser rejects). Only the request on {@link #streamId()} fails; decoding goes on with the
 *       next frame. When the RESULT parser rejected the body, the {@link #getCause() cause} is its
 *       {@link CqlParseException} ({@link #parseError()}).
 * </ul>
 *
 * <p>The message is derived from the fields, for example {@code version byte: 0x47 (expected:
 * protocol version 3-6, 0x03-0x06 or 0x83-0x86) (frame header at offset 0)} or {@code stream 7:
 * body length: 2147483647 (expected: <= 268435456, ParseLimits.maxFrameBodyLength) (frame header at
 * offset 1024)}. Callers and tests should look at the fields. Immutable.
 */
public final class CqlFrameException extends CqlException {
  private static final long serialVersionUID = 1L;

  /** What was wrong. */
  public enum Reason implements CqlException.Reason {
    /** A version byte outside the protocol versions read there (3-6; 5-6 inside segments). */
    BAD_VERSION,
    /** A negative body length in an envelope header. */
    BAD_LENGTH,
    /** Body compression (flag 0x01) on a v3/v4 frame of a connection that negotiated none. */
    UNEXPECTED_COMPRESSION,
    /**
     * A compressed body or segment payload that does not decompress (LZ4, Snappy) to the length it
     * declares, or that declares more than its compressed length can make: connection-level.
     */
    CORRUPT_COMPRESSION,
    /** A v5 segment header whose CRC24 does not match (or matches neither segment format). */
    CRC24_MISMATCH,
    /** A v5 segment payload whose CRC32 does not match. */
    CRC32_MISMATCH,
    /**
     * A frame or envelope header that declares a body longer than {@link
     * io.cqlrows.core.ParseLimits#maxFrameBodyLength()}: connection-level, with the header's stream
     * id. The length is all that delimits a frame, so once it is not believed, nothing after the
     * header can be placed (docs/protocol.md, "A bad length ends the connection").
     */
    FRAME_TOO_LARGE,
    /**
     * A compressed v3/v4 body that declares more uncompressed bytes than {@link
     * io.cqlrows.core.ParseLimits#maxDecompressedLength()} (or {@code maxFrameBodyLength()})
     * allows, or a v5 envelope whose LZ4 segments decompress to more: frame-local, for its stream,
     * found before anything of that size is allocated. Its compressed bytes are delimited by the
     * frame header or by the segments, so decoding goes on with the next frame.
     */
    DECOMPRESSED_TOO_LARGE,
    /**
     * Input that ends inside a frame, a segment or an envelope split across segments, or a streamed
     * body that the connection cut off.
     */
    TRUNCATED,
    /** A malformed prelude (tracing id, warnings, custom payload): frame-local. */
    BAD_PRELUDE,
    /** An opcode the protocol does not define: frame-local. */
    UNKNOWN_OPCODE,
    /** v5 segments that contradict the envelopes they carry. */
    SEGMENT_MISMATCH,
    /** A RESULT body the parser rejected: frame-local, the cause is its exception. */
    BAD_RESULT,
    /** A custom payload entry cqlrows decodes ({@code tablets-routing-v1}) that is malformed. */
    BAD_PAYLOAD,
    /** Another response body cqlrows decodes (an ERROR, a SUPPORTED) that is malformed. */
    BAD_RESPONSE,
    /** The connection closed before a response arrived. */
    CONNECTION_CLOSED,
    /** A capture starting mid-connection in which no frame or segment boundary can be proved. */
    NO_BOUNDARY,
    /** Messages in an order the handlers cannot follow (a body chunk without its frame head). */
    OUT_OF_ORDER,
    /** An unexpected error of another kind (the cause) that ended a replayed connection. */
    UNEXPECTED
  }

  private final Reason reason;
  private final boolean connectionLevel;
  private final int streamId;
  private final long offset;
  private final String structure;
  private final String detail;

  /**
   * An error of one connection's inbound bytes. The decoders and handlers of {@code cqlrows-netty}
   * create these; the constructor is public for code that decodes CQL bytes on its own and reports
   * what it could not accept in the same terms.
   *
   * @param reason what was wrong, not {@code null}
   * @param connectionLevel {@code true} if the connection's byte stream is unusable from here on,
   *     {@code false} if only the frame on {@code streamId} is
   * @param streamId the stream id of the frame, or -1 when unknown
   * @param offset byte offset of the problem (or of its frame or structure) in the connection's
   *     inbound byte stream, or -1 when unknown
   * @param structure what is at {@code offset} for a connection-level error, e.g. {@code "frame
   *     header"}, {@code "segment header"}, {@code "end of input"}; or {@code null}
   * @param detail what was expected and found, in Netty's style ({@code "name: value (expected:
   *     ...)"}), or {@code null} for the reason alone
   * @param cause the underlying error, or {@code null}; a {@link CqlParseException} here is the
   *     {@link #parseError()}
   */
  public CqlFrameException(
      Reason reason,
      boolean connectionLevel,
      int streamId,
      long offset,
      String structure,
      String detail,
      Throwable cause) {
    super(null, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.connectionLevel = connectionLevel;
    this.streamId = streamId;
    this.offset = offset;
    this.structure = structure;
    this.detail = detail;
  }

  /** What was wrong. */
  @Override
  public Reason reason() {
    return reason;
  }

  /** True if the connection's byte stream is unusable from here on; false if only one frame is. */
  public boolean connectionLevel() {
    return connectionLevel;
  }

  /** The stream id of the frame, or -1 when unknown (most connection-level errors). */
  public int streamId() {
    return streamId;
  }

  /** Byte offset in the connection's inbound byte stream, or -1 if unknown. */
  public long offset() {
    return offset;
  }

  /**
   * What is at {@link #offset()} for a connection-level error ({@code "frame header"}, {@code
   * "segment header"}, {@code "end of input"}), or {@code null}.
   */
  public String structure() {
    return structure;
  }

  /** What was expected and found, without the location. */
  public String detail() {
    return detail;
  }

  /** The RESULT parser's error if that is what rejected the frame, else {@code null}. */
  public CqlParseException parseError() {
    return getCause() instanceof CqlParseException e ? e : null;
  }

  @Override
  public String getMessage() {
    StringBuilder sb = new StringBuilder(96);
    if (streamId >= 0) {
      sb.append("stream ").append(streamId).append(": ");
    }
    sb.append(detail != null ? detail : reason.name().toLowerCase(Locale.ROOT).replace('_', ' '));
    if (offset >= 0) {
      if (structure != null) {
        sb.append(" (").append(structure).append(" at offset ").append(offset).append(')');
      } else {
        sb.append(" (connection offset ").append(offset).append(')');
      }
    }
    return sb.toString();
  }
}
