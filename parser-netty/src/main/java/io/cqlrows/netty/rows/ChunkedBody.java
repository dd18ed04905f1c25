package io.cqlrows.netty.rows;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ResultStream;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.frame.FramePrelude;
import io.cqlrows.netty.internal.FrameErrors;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * The one RESULT body of a connection that arrives as a {@link FrameHead} and {@link FrameChunk}s:
 * either its rows are parsed as the chunks arrive ({@link #stream}), or the chunks are gathered
 * without copying into a whole {@link Frame} ({@link #gather}). Idle between bodies.
 *
 * <p>Owns the gathered buffer until it is handed on as a frame, and releases it when the body is
 * abandoned or {@link #release()}d. Not thread-safe: used on its handler's event loop.
 */
final class ChunkedBody {
  /** The frame whose body arrives, or null when idle. */
  private FrameHead head;

  /** Its rows being parsed, when streamed. */
  private ResultStream stream;

  /** Its chunks gathered into a whole body, otherwise. */
  private CompositeByteBuf gathered;

  /** Its parse failed (and was reported): the rest of its chunks are dropped. */
  private boolean dropping;

  /** The tablet routing of its custom payload, or null. */
  private TabletRouting tablets;

  /**
   * Starts a body.
   *
   * @throws CqlFrameException OUT_OF_ORDER if the previous body is incomplete
   */
  void begin(FrameHead h) {
    if (head != null) {
      throw outOfOrder(
          "frame head on stream "
              + h.streamId()
              + " while the body of stream "
              + head.streamId()
              + " is incomplete");
    }
    head = h;
  }

  /** Gathers the body's chunks into a frame, handed on by {@link #chunk} at the last one. */
  void gather(ByteBufAllocator alloc) {
    gathered = alloc.compositeBuffer(Integer.MAX_VALUE);
  }

  /**
   * Parses the body's rows as its chunks arrive.
   *
   * @param s the parse, closed here when the body ends or is abandoned
   * @param routing the decoded tablet routing of the head's payload, or null
   */
  void stream(ResultStream s, TabletRouting routing) {
    stream = s;
    tablets = routing;
  }

  /**
   * Drops the rest of the body: its parse failed and the caller reported it, or nobody waits for it
   * any more (a late answer to a request that timed out, dropped from its head on). Its chunks are
   * released as they arrive, no row reaches a sink, and its end reports nothing.
   */
  void drop() {
    dropping = true;
  }

  /** The stream id of the body arriving, or -1 when idle. */
  int streamId() {
    return head == null ? -1 : head.streamId();
  }

  /** Whether the body arriving is parsed as it arrives (rather than gathered or dropped). */
  boolean isStreamed() {
    return stream != null;
  }

  /**
   * Takes one chunk of the body and releases it.
   *
   * @return what the handler fires or handles next: a gathered {@link Frame} (ownership
   *     transferred) at the last chunk, a {@link RowsResponse} at the last chunk of a streamed
   *     body, a {@link RowsFailure} when its parse fails, a {@link SinkFailure} when its sink
   *     throws, else null
   * @throws CqlFrameException OUT_OF_ORDER if the chunk is not of the current body
   */
  Object chunk(FrameChunk c) {
    Object out = null;
    try {
      if (head == null || c.streamId() != head.streamId()) {
        throw outOfOrder("body chunk on stream " + c.streamId() + " without its frame head");
      }
      if (gathered != null) {
        gathered.addComponent(true, c.content().retain());
      } else if (!dropping) {
        out = feed(c);
      }
    } finally {
      c.release();
    }
    Object last = c.isLast() ? end() : null;
    return out != null ? out : last; // a failed parse ends with nothing more to report
  }

  private Object feed(FrameChunk c) {
    try {
      stream.feed(c.content());
      return null;
    } catch (CqlParseException e) {
      dropping = true;
      return new RowsFailure(
          head.streamId(), FrameErrors.badResult(head.streamId(), head.bodyOffset(), e));
    } catch (RuntimeException e) {
      dropping = true; // the sink threw: the rest of the body is dropped, as after a bad cell
      return new SinkFailure(head.streamId(), e);
    }
  }

  /**
   * The sink of a streamed body threw: its rows stop, the rest of the body is dropped, and the
   * handler reports {@code cause} as it does for a sink that throws on a whole frame.
   */
  record SinkFailure(int streamId, RuntimeException cause) {}

  private Object end() {
    FrameHead h = head;
    head = null;
    if (gathered != null) {
      CompositeByteBuf body = gathered;
      gathered = null;
      return new Frame(
          h.version(),
          h.response(),
          h.flags(),
          h.streamId(),
          h.opcode(),
          h.prelude(),
          body,
          h.bodyOffset());
    }
    TabletRouting routing = tablets;
    ResultStream s = endStream();
    if (s == null) {
      return null;
    }
    FramePrelude p = h.prelude();
    return new RowsResponse(
        h.streamId(),
        s.result(),
        h.flags(),
        p.warnings(),
        p.tracingId(),
        p.customPayload(),
        routing);
  }

  /**
   * Closes the streamed parse; returns it, or null if its failure was already reported or the body
   * was dropped.
   */
  private ResultStream endStream() {
    ResultStream s = stream;
    stream = null;
    tablets = null;
    boolean failed = dropping;
    dropping = false;
    if (s == null) {
      return null; // dropped from its head on
    }
    s.close();
    return failed ? null : s;
  }

  /**
   * Ends a body the connection cut off.
   *
   * @param why why the connection ended
   * @return the failure of a streamed body's stream (TRUNCATED, naming the last complete row), or
   *     null: idle, gathering (its registration fails with the others) or already failed
   */
  RowsFailure abandon(String why) {
    if (head == null) {
      return null;
    }
    FrameHead h = head;
    head = null;
    if (gathered != null) {
      gathered.release();
      gathered = null;
      return null;
    }
    ResultStream s = endStream();
    return s == null
        ? null
        : new RowsFailure(
            h.streamId(), FrameErrors.truncatedStream(h.streamId(), why, s.truncatedError()));
  }

  /** Bytes held: the gathered body, or the row in progress of a streamed one; 0 when idle. */
  int bufferedBytes() {
    if (gathered != null) {
      return gathered.readableBytes();
    }
    return stream == null ? 0 : stream.bytesHeld();
  }

  /** Releases what is held, without reporting: the handler is removed. */
  void release() {
    if (gathered != null) {
      gathered.release();
      gathered = null;
    }
    if (stream != null) {
      stream.close();
      stream = null;
    }
    head = null;
    tablets = null;
    dropping = false;
  }

  static CqlFrameException outOfOrder(String detail) {
    return FrameErrors.connectionError(Reason.OUT_OF_ORDER, -1, null, detail, null);
  }
}
