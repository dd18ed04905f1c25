package io.cqlrows.core;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Where the next page of a query starts: the {@code paging_state} of a ROWS result ({@link
 * RowsMetadata#pagingState()}), sent back with the request for the next page ({@code
 * QueryParameters.withPagingState} in cqlrows-netty, or its {@code nextPage}, which does both).
 * Immutable.
 *
 * <p><b>Opaque.</b> The bytes are the server's own encoding, which differs between servers,
 * releases and protocol versions: send them back unchanged, never build or edit them.
 *
 * <p><b>Valid only for the statement it came from</b>, with the same bound values: the same query
 * text or prepared statement. Sent with another, the server may fail the request or, without
 * noticing, answer rows from somewhere else. The page size may differ from page to page.
 *
 * <p><b>Keeping one.</b> {@link #bytes()} and {@link #of(byte[])} turn it into bytes and back, to
 * resume the query later (on another connection to the same cluster, say). The bytes are not
 * signed: a paging state from outside is untrusted input, as the statement's values are.
 */
public final class PagingState {
  /** The bytes {@link #toString()} shows in hex; the rest is elided. */
  private static final int SHOWN_BYTES = 16;

  /** Never shared with a caller. */
  private final byte[] bytes;

  private PagingState(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * The paging state of these bytes, as {@link #bytes()} returned them.
   *
   * @param bytes copied; may be empty
   * @throws NullPointerException if {@code bytes} is null
   */
  public static PagingState of(byte[] bytes) {
    return new PagingState(Objects.requireNonNull(bytes, "bytes").clone());
  }

  /** Takes {@code bytes} without copying: the caller keeps no reference to them. */
  static PagingState wrap(byte[] bytes) {
    return new PagingState(bytes);
  }

  /** A copy of the bytes, to keep the paging state outside this process (see the class doc). */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Whether {@code o} is a paging state of the same bytes. */
  @Override
  public boolean equals(Object o) {
    return o instanceof PagingState other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /**
   * Its length and its bytes in hex, the first 16 only: {@code PagingState[2 bytes: cafe]}, {@code
   * PagingState[40 bytes: 000102030405060708090a0b0c0d0e0f...]}.
   */
  @Override
  public String toString() {
    int shown = Math.min(bytes.length, SHOWN_BYTES);
    return "PagingState["
        + bytes.length
        + (bytes.length == 1 ? " byte: " : " bytes: ")
        + HexFormat.of().formatHex(bytes, 0, shown)
        + (shown < bytes.length ? "...]" : "]");
  }
}
