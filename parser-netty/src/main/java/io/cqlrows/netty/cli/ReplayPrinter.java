package io.cqlrows.netty.cli;

import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.netty.CqlFrameException;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.io.PrintStream;

/**
 * The last handler of a replay: counts ROWS results (their sink already printed them), prints
 * frame-local errors, releases the frames nobody parsed, and records the first fatal exception
 * instead of letting it reach the channel's tail.
 *
 * <p>One instance per replay; runs on the replay's thread.
 */
final class ReplayPrinter extends ChannelInboundHandlerAdapter {
  private final PrintStream out;
  private final boolean table;
  private final long limit;
  /** Results and error lines printed so far. */
  private long printed;
  /** The first connection-level or unexpected error, or null. */
  private Throwable fatal;

  ReplayPrinter(PrintStream out, boolean table, long limit) {
    this.out = out;
    this.table = table;
    this.limit = limit;
  }

  /** Whether the limit leaves room for more output. */
  boolean wantsMore() {
    return printed < limit;
  }

  /** The first connection-level or unexpected error, or null. */
  Throwable fatal() {
    return fatal;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof RowsResponse response) {
      if (response.result() instanceof RowsResult) {
        printed++;
      }
    } else if (msg instanceof RowsFailure failure) {
      printError(failure.streamId(), failure.cause().getMessage());
    } else {
      ReferenceCountUtil.release(msg); // frames nobody parsed: READY, ERROR, events...
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
      printError(e.streamId(), e.getMessage());
    } else if (fatal == null) {
      fatal = cause;
    }
  }

  private void printError(int streamId, String message) {
    if (!wantsMore()) {
      return;
    }
    printed++;
    StringBuilder line = new StringBuilder(64 + message.length());
    if (table) {
      line.append("stream ").append(streamId).append(": error: ").append(message);
    } else {
      line.append("{\"stream\":").append(streamId).append(",\"error\":");
      CanonicalJson.appendString(line, message);
      line.append('}');
    }
    out.append(line).append('\n');
  }
}
