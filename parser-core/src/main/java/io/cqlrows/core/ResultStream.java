package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Objects;

/**
 * One RESULT body parsed while it arrives: each row reaches the sink as soon as its last byte has
 * been {@linkplain #feed fed}, so a page of tens of megabytes starts reaching the application after
 * its first network read, and a sink that does not keep the bytes runs in memory bounded by one row
 * plus one piece. Created by {@link ResultReader#stream}.
 *
 * <pre>{@code
 * ResultStream s = reader.stream(sink, null, bodyLength);   // bodyLength: from the frame header
 * try {
 *   for (ByteBuf piece : pieces) {                           // as the bytes arrive
 *     s.feed(piece);                                         // complete rows reach the sink here
 *   }
 *   CqlResult result = s.result();                           // after the last byte
 * } finally {
 *   s.close();
 * }
 * }</pre>
 *
 * <p>The events, values and errors are exactly those of {@link ResultReader#read} on the whole
 * body, however the body is split; error offsets are offsets in the whole body. Until the metadata
 * is complete nothing reaches the sink; a result that is not ROWS is gathered and read when its
 * last byte arrives.
 *
 * <p>A {@link LazyPageSink} is the exception: its page needs the whole body, so the stream gathers
 * every piece into one heap buffer, reads it once the last byte is in, and hands that buffer to the
 * page; errors then come with the last piece.
 *
 * <p><b>Memory.</b> Bytes are parsed in place in the piece they arrive in; only the bytes of a row
 * that runs past the end of a piece (or of metadata that does) are copied, into a heap buffer this
 * stream owns, and completing that row copies no more of the next piece than it needs (plus at most
 * as much again).
 *
 * <p><b>Ownership.</b> Pieces are borrowed: read from their reader to their writer index, never
 * retained, released or moved. The stream owns its buffer of held bytes until {@link #close()},
 * which a caller must call on every path (it is idempotent and also runs after the last byte or an
 * error). Not thread-safe.
 */
public final class ResultStream implements AutoCloseable {
  /** First size of the bytes taken from a piece to complete a row in progress. */
  private static final int FIRST_STEP = 1024;

  private final ResultReader reader;
  private final RowSink sink;
  private final ResultColumns prepared;
  private final int bodyLength;

  /** Bytes received and not yet parsed (the metadata so far, or the row in progress); owned. */
  private ByteBuf held;

  /** Body offset of {@code held}'s byte 0 (its reader index stays 0). */
  private int heldOffset;

  private int received;

  /** The row loop, once the metadata has been read. */
  private RowsParser rows;

  private CqlResult result;
  private boolean failed;

  ResultStream(ResultReader reader, RowSink sink, ResultColumns prepared, int bodyLength) {
    if (bodyLength < 0) {
      throw new IllegalArgumentException("bodyLength: " + bodyLength + " (expected: >= 0)");
    }
    this.reader = reader;
    this.sink = Objects.requireNonNull(sink, "sink");
    this.prepared = prepared;
    this.bodyLength = bodyLength;
  }

  /**
   * Parses the next bytes of the body: every row they complete reaches the sink before this
   * returns. After the last byte of the body the result ends ({@link RowSink#onResultEnd}) and
   * {@link #result()} is available.
   *
   * @param piece the next bytes, from its reader to its writer index. Borrowed.
   * @throws CqlParseException if the body is malformed (the stream is then closed)
   * @throws IllegalArgumentException if the piece runs past the body length
   * @throws IllegalStateException after the last byte, an error or {@link #close()}
   */
  public void feed(ByteBuf piece) {
    if (failed || result != null) {
      throw new IllegalStateException(
          failed ? "the stream failed or was closed" : "the body is complete");
    }
    int n = piece.readableBytes();
    if (n > bodyLength - received) {
      throw new IllegalArgumentException(
          "piece of " + n + " bytes after " + received + " of a " + bodyLength + "-byte body");
    }
    int pieceOffset = received;
    received += n;
    boolean last = received == bodyLength;
    int pieceStart = piece.readerIndex() - pieceOffset; // index in piece of body offset 0
    try {
      if (rows == null) {
        int afterHeader = held == null ? headerInPlace(piece, pieceStart, last) : -1;
        if (afterHeader >= 0) {
          parsePiece(piece, pieceStart, afterHeader, last);
        } else {
          hold(piece, piece.readerIndex(), n);
          if (readHeader(last) && result == null) {
            int p = rows.parse(held, -heldOffset, 0, held.writerIndex(), last);
            keepFromHeld(p);
          }
        }
      } else if (!rows.done()) {
        parsePiece(piece, pieceStart, piece.readerIndex(), last);
      }
      if (last && result == null) {
        finish();
      }
    } catch (RuntimeException e) { // CqlParseException included
      close();
      throw e;
    }
  }

  /**
   * Completes the row in progress from the piece, then parses the rest of it in place.
   *
   * @param pieceStart index in {@code piece} of body offset 0
   * @param from where in {@code piece} the bytes not yet parsed start
   */
  private void parsePiece(ByteBuf piece, int pieceStart, int from, boolean last) {
    int end = piece.writerIndex();
    if (held != null && held.isReadable()) {
      int step = FIRST_STEP;
      while (from < end) {
        int k = Math.min(step, end - from);
        int oldEnd = held.writerIndex();
        held.writeBytes(piece, from, k);
        from += k;
        step *= 2;
        int p = rows.parse(held, -heldOffset, 0, held.writerIndex(), last && from == end);
        if (p > 0) {
          // the row in progress ended in the bytes just added (p > oldEnd): parse the rest of
          // them from the piece itself
          from -= held.writerIndex() - p;
          assert p > oldEnd;
          held.clear();
          heldOffset = from - pieceStart;
          break;
        }
      }
      if (held.isReadable() || rows.done()) {
        return;
      }
    }
    int p = rows.parse(piece, pieceStart, from, end, last);
    if (!rows.done() && p < end) {
      hold(piece, p, end - p);
      heldOffset = p - pieceStart;
    }
  }

  /** Appends bytes to {@code held}, allocating it on first use. */
  private void hold(ByteBuf from, int index, int length) {
    if (held == null) {
      held = Unpooled.buffer(Math.max(length, 256));
    }
    held.writeBytes(from, index, length);
  }

  /** Drops the parsed bytes {@code [0, p)} of {@code held}. */
  private void keepFromHeld(int p) {
    held.readerIndex(p);
    held.discardReadBytes();
    heldOffset += p;
  }

  /**
   * Reads the kind and the ROWS metadata straight from the first piece, when they are all in it:
   * the rows after them are then parsed in place too, and nothing is copied.
   *
   * @return the index in {@code piece} after the metadata, or -1 if it is not a ROWS result, its
   *     metadata goes on in the next piece (then the piece is held as usual) or the sink is a
   *     {@link LazyPageSink}, which takes the body whole
   */
  private int headerInPlace(ByteBuf piece, int pieceStart, boolean last) {
    if (sink instanceof LazyPageSink) {
      return -1;
    }
    BodyReader in = new BodyReader(piece, pieceStart, piece.readerIndex(), piece.writerIndex());
    try {
      if (in.readInt("kind") != RowsResult.KIND) {
        return -1;
      }
      rows =
          reader.readRowsHeader(in, sink, prepared, (long) bodyLength - (in.position - pieceStart));
      return in.position;
    } catch (CqlParseException e) {
      if (e.reason() == Reason.TRUNCATED && !last) {
        return -1; // the rest of the metadata is on its way
      }
      throw e.withContext(piece, pieceStart, -1, -1, null, null);
    }
  }

  /**
   * Reads the kind and, for ROWS, the metadata from {@code held} once they are all there.
   *
   * @return whether the header was read (a non-ROWS result, or any result for a {@link
   *     LazyPageSink}, is then read whole, once complete; the page takes a reference to the held
   *     buffer, which so becomes the page's own copy of the body)
   */
  private boolean readHeader(boolean last) {
    BodyReader in = new BodyReader(held, 0, 0, held.writerIndex());
    try {
      int kind = in.readInt("kind");
      if (kind != RowsResult.KIND || sink instanceof LazyPageSink) {
        if (last) {
          result = reader.read(held, sink, prepared);
          close();
        }
        return false;
      }
      rows = reader.readRowsHeader(in, sink, prepared, (long) bodyLength - in.position);
    } catch (CqlParseException e) {
      if (e.reason() == Reason.TRUNCATED && !last) {
        return false; // the rest of the metadata is on its way
      }
      throw e.withContext(held, 0, -1, -1, null, null);
    }
    keepFromHeld(in.position);
    return true;
  }

  private void finish() {
    if (rows == null || !rows.done()) {
      // unreachable: a complete body either parses whole or throws
      throw new IllegalStateException("body complete but rows were not");
    }
    result = rows.result();
    close();
    sink.onResultEnd(((RowsResult) result).rowCount());
  }

  /** Whether the whole body has been fed and parsed. */
  public boolean isComplete() {
    return result != null;
  }

  /**
   * The result, after the last byte.
   *
   * @throws IllegalStateException before that
   */
  public CqlResult result() {
    if (result == null) {
      throw new IllegalStateException(
          "the body is not complete: " + received + " of " + bodyLength + " bytes");
    }
    return result;
  }

  /** Bytes of the body fed so far. */
  public int bytesReceived() {
    return received;
  }

  /** The body length given at creation. */
  public int bodyLength() {
    return bodyLength;
  }

  /** Bytes currently held (metadata or a row in progress), for memory accounting. */
  public int bytesHeld() {
    return held == null ? 0 : held.readableBytes();
  }

  /** Rows delivered to the sink so far. */
  public int rowsDelivered() {
    return rows == null ? 0 : rows.rowsDelivered();
  }

  /**
   * The error for a body that ends early (the connection closed): TRUNCATED at the first byte not
   * received, naming the row in progress, after the last complete row. Does not close the stream.
   */
  public CqlParseException truncatedError() {
    int row = rowsDelivered();
    return CqlParseException.at(
            Reason.TRUNCATED,
            "body",
            received,
            null,
            "the body ended after "
                + received
                + " of "
                + bodyLength
                + " bytes; "
                + (rows == null
                    ? "the metadata was incomplete"
                    : row + " complete rows were delivered, the last was row " + (row - 1)))
        .withContext(null, 0, rows == null ? -1 : row, -1, null, null);
  }

  /** Releases the held bytes; further {@link #feed} calls fail. Idempotent. */
  @Override
  public void close() {
    if (result == null) {
      failed = true;
    }
    if (held != null) {
      held.release();
      held = null;
    }
  }
}
