package io.cqlrows.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.testing.Allocations;
import io.cqlrows.testing.CheckingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Coverage-guided fuzzing of {@link ResultReader}: any bytes, read as one or more RESULT bodies,
 * must end in a result or a {@link CqlParseException}, and nothing else.
 *
 * <p><b>Input.</b> Byte 0 configures the read, the rest holds the bodies:
 *
 * <pre>
 * byte 0: bits 0-1  protocol version 3 + (0-3): 3, 4, 5, 6
 *         bits 2-4  sink: 0 CountingSink, 1 RowsCollector, 2 JsonLinesSink, 3 ColumnarSink,
 *                   4 ColumnarSink.reuseArrays, 5 JsonLinesSink selecting columns 0 and 2,
 *                   6 ColumnarSink selecting column 1, 7 RowsCollector on a ScyllaDB
 *                   connection (SCYLLA_USE_METADATA_ID and SCYLLA_LWT_ADD_METADATA_MARK on)
 *                   with malformed text replaced ({@link ParseLimits#replaceMalformedText()})
 *         bit 5     ResultReader.rawCellsWithoutMetadata
 *         bits 6-7  the body's buffer: 0 heap array with bytes before and after the body,
 *                   1 direct, 2 composite of two heap parts, 3 exact heap array
 * then:   [u16 length][body] [u16 length][body] ... (a length past the end takes the rest)
 * </pre>
 *
 * All bodies go through one reader and one sink, as on a connection: the reader's column cache and
 * the sinks' reuse across results are exercised. A PREPARED result's result columns are passed with
 * every later body (for {@code No_metadata} rows).
 *
 * <p><b>Checked, per body:</b> only {@link CqlParseException} escapes, its offset within the body
 * and its message renders; the body is borrowed (refCnt, reader and writer index unchanged, then
 * released to 0); the sink sees {@link io.cqlrows.core.RowSink}'s event protocol ({@link
 * CheckingSink}) and a result's announced row count; JSON lines parse as JSON; and the parse
 * allocates at most {@link #allocationBound} bytes (see there).
 *
 * <p><b>Runs.</b> In {@code mvn verify} over the committed inputs in {@code
 * src/test/resources/io/cqlrows/core/ResultReaderFuzzTestInputs/readsAnyBody/} (regression mode);
 * {@code JAZZER_FUZZ=1} fuzzes (docs/testing.md, "Fuzzing").
 */
class ResultReaderFuzzTest {
  /** Garbage any parse may make regardless of its size: class init, the reader's state. */
  static final long BASE_ALLOCATION = 64 * 1024;

  /**
   * More garbage a parse may make while fuzzing ({@code JAZZER_FUZZ} set): Jazzer's instrumentation
   * allocates on the parsing thread. Measured: 78,088 bytes for a 119-byte body with a malformed
   * text cell whose parse allocates 4,872 bytes without the instrumentation. Size bombs still show:
   * they allocate megabytes.
   */
  static final long INSTRUMENTATION_ALLOCATION =
      System.getenv("JAZZER_FUZZ") != null ? 64 * 1024 : 0;

  /** How many times a parse over the allocation bound is measured again. */
  private static final int REMEASURES = 3;

  /** Bytes per body byte that any sink may allocate. */
  static final long PER_BYTE = 64;

  /**
   * ColumnarSink pads trailing rows without values up to {@code 2^20} slots per column (its
   * documented {@code MAX_PADDING_SLOTS}), at most 8 bytes each.
   */
  static final long COLUMNAR_PADDING_PER_COLUMN = 8L << 20;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ProtocolFeatures SCYLLA =
      ProtocolFeatures.NONE
          .withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID)
          .withExtension(ProtocolFeatures.SCYLLA_LWT_ADD_METADATA_MARK);

  /**
   * Direct buffers without leak tracking: under the paranoid leak detection of the test run every
   * access to a tracked buffer records a stack trace, which would count as the parser's allocation.
   * Release is checked here instead ({@code refCnt() == 0}).
   */
  private static final ByteBufAllocator UNTRACKED = new UnpooledByteBufAllocator(true, true);

  @FuzzTest(maxDuration = "5m")
  void readsAnyBody(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int config = input[0] & 0xFF;
    int version = 3 + (config & 3);
    int sinkKind = (config >>> 2) & 7;
    boolean raw = (config & 0x20) != 0;
    int bufferKind = config >>> 6;

    ResultReader reader =
        (sinkKind == 7
                ? new ResultReader(
                    version,
                    ParseLimits.defaults().toBuilder().replaceMalformedText(true).build(),
                    SCYLLA)
                : new ResultReader(version))
            .rawCellsWithoutMetadata(raw);
    StringBuilder json = new StringBuilder();
    RowSink target = sink(sinkKind, json);
    CheckingSink sink = new CheckingSink(target);
    ResultColumns prepared = null;
    int at = 1;
    do {
      int length = input.length - at;
      int from = at;
      if (length >= 2) {
        int declared = ((input[at] & 0xFF) << 8) | (input[at + 1] & 0xFF);
        from = at + 2;
        length = Math.min(declared, input.length - from);
      }
      at = from + length;
      CqlResult result =
          readOne(reader, input, from, length, bufferKind, sink, target, sinkKind, json, prepared);
      if (result instanceof PreparedResult p) {
        prepared = p.resultColumns();
      }
    } while (at < input.length);
  }

  private static RowSink sink(int kind, StringBuilder json) {
    switch (kind) {
      case 0:
        return new CountingSink();
      case 1:
      case 7:
        return new RowsCollector();
      case 2:
        return new JsonLinesSink(json);
      case 3:
        return new ColumnarSink();
      case 4:
        return new ColumnarSink().reuseArrays(true);
      case 5:
        {
          JsonLinesSink s = new JsonLinesSink(json);
          s.selectColumns(0, 2);
          return s;
        }
      default:
        return new ColumnarSink().selectColumns(1);
    }
  }

  /** Reads one body; returns its result, or null if it was rejected. */
  private static CqlResult readOne(
      ResultReader reader,
      byte[] input,
      int from,
      int length,
      int bufferKind,
      CheckingSink sink,
      RowSink target,
      int sinkKind,
      StringBuilder json,
      ResultColumns prepared) {
    ByteBuf body = body(input, from, length, bufferKind);
    int readerIndex = body.readerIndex();
    int writerIndex = body.writerIndex();
    json.setLength(0);
    int rowsBefore = target instanceof RowsCollector c ? c.rows().size() : 0;
    CqlResult result = null;
    CqlParseException error = null;
    long before = Allocations.current();
    try {
      result = reader.read(body, sink, prepared);
    } catch (CqlParseException e) {
      error = e;
    } finally {
      long allocated = Allocations.current() - before;
      check(body.refCnt() == 1, "refCnt after read: " + body.refCnt());
      check(
          body.readerIndex() == readerIndex && body.writerIndex() == writerIndex,
          "body indices moved");
      body.release();
      check(body.refCnt() == 0, "body not released");
      checkAllocation(
          allocated, length, target, sinkKind, result, reader, input, from, bufferKind, prepared);
    }
    if (error != null) {
      check(
          error.offset() >= -1 && error.offset() <= length,
          "offset " + error.offset() + " outside a body of " + length + " bytes");
      check(error.getMessage() != null && error.reason() != null, "message");
      return null;
    }
    check(result != null, "null result");
    if (result instanceof RowsResult rows) {
      check(
          sink.rowsEnded() == rows.rowCount(),
          "rows delivered " + sink.rowsEnded() + " != rows_count " + rows.rowCount());
      checkSink(target, rows, rowsBefore, json);
    }
    return result;
  }

  /**
   * The most a parse of {@code length} body bytes may allocate: {@link #BASE_ALLOCATION} (and
   * {@link #INSTRUMENTATION_ALLOCATION} while fuzzing) plus {@link #PER_BYTE} per byte, and for a
   * {@link ColumnarSink} its documented padding of trailing rows without values, per column. A
   * parse over the bound is measured again (same input and reader, a new sink of the same kind), up
   * to {@value #REMEASURES} times, and the least is checked: that leaves out one-time class
   * initialisation and garbage the JVM makes on this thread now and then; a parser that allocates
   * too much does so on every parse.
   */
  static long allocationBound(int length, RowSink sink, int columns) {
    long bound = BASE_ALLOCATION + INSTRUMENTATION_ALLOCATION + PER_BYTE * length;
    if (sink instanceof ColumnarSink) {
      bound += COLUMNAR_PADDING_PER_COLUMN * columns;
    }
    return bound;
  }

  private static void checkAllocation(
      long allocated,
      int length,
      RowSink target,
      int sinkKind,
      CqlResult result,
      ResultReader reader,
      byte[] input,
      int from,
      int bufferKind,
      ResultColumns prepared) {
    int columns = result instanceof RowsResult r ? r.metadata().columns().size() : 0;
    if (allocated <= allocationBound(length, target, columns)) {
      return;
    }
    if (VectorCopy.simd()) {
      // The opt-in SIMD copy (the Vector API) allocates about 190 bytes per vector byte
      // until C2 compiles it (a campaign finding, crash-e3037468...; VectorCopy's Javadoc): the
      // bound holds for the default scalar path, which the scalar-fallback JVM and campaigns
      // without -Dio.cqlrows.simd=true check.
      return;
    }
    // again: the first parse of a shape may initialise classes (a JSON sink's formatters)
    for (int i = 0; i < REMEASURES && allocated > allocationBound(length, target, columns); i++) {
      ByteBuf again = body(input, from, length, bufferKind);
      RowSink fresh = sink(sinkKind, new StringBuilder());
      long before = Allocations.current();
      try {
        reader.read(again, fresh, prepared);
      } catch (CqlParseException expected) {
        // the same input fails the same way
      } finally {
        allocated = Math.min(allocated, Allocations.current() - before);
        again.release();
      }
    }
    check(
        allocated <= allocationBound(length, target, columns),
        "allocated "
            + allocated
            + " bytes parsing a body of "
            + length
            + " bytes (bound "
            + allocationBound(length, target, columns)
            + ")");
  }

  private static void checkSink(
      RowSink target, RowsResult rows, int rowsBefore, StringBuilder json) {
    if (target instanceof RowsCollector c) {
      // rows accumulate across results
      check(
          c.rows().size() - rowsBefore == rows.rowCount(),
          "RowsCollector rows " + (c.rows().size() - rowsBefore));
    } else if (target instanceof ColumnarSink c) {
      check(c.rowCount() == rows.rowCount(), "ColumnarSink rowCount " + c.rowCount());
    } else if (target instanceof JsonLinesSink) {
      check(
          json.length() > 0
              && json.charAt(json.length() - 1) == '\n'
              && json.indexOf("\n") == json.length() - 1,
          "one JSON line");
      try {
        JSON.readTree(json.toString());
      } catch (IOException e) {
        throw new UncheckedIOException("JsonLinesSink wrote invalid JSON: " + json, e);
      }
    }
  }

  /** The body in the buffer kind the input asks for; the caller owns it and releases it. */
  static ByteBuf body(byte[] input, int from, int length, int kind) {
    switch (kind) {
      case 0:
        {
          // bytes before the reader index and after the writer index must not be read
          ByteBuf b = Unpooled.buffer(length + 6);
          b.writeBytes(new byte[] {0x7F, 0x7F, 0x7F})
              .writeBytes(input, from, length)
              .writeBytes(new byte[] {0x7F, 0x7F, 0x7F});
          return b.setIndex(3, 3 + length);
        }
      case 1:
        return UNTRACKED.directBuffer(length).writeBytes(input, from, length);
      case 2:
        {
          int half = length / 2;
          CompositeByteBuf c = Unpooled.compositeBuffer();
          c.addComponent(true, Unpooled.wrappedBuffer(input, from, half).copy());
          c.addComponent(true, Unpooled.wrappedBuffer(input, from + half, length - half).copy());
          return c;
        }
      default:
        // not Unpooled.wrappedBuffer: for no bytes it returns the shared EMPTY_BUFFER, which
        // cannot be released
        return Unpooled.buffer(length, Math.max(length, 1)).writeBytes(input, from, length);
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
