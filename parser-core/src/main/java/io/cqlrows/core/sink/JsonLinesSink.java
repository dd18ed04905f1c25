package io.cqlrows.core.sink;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.BitSet;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes each ROWS result as one line of JSON (JSON Lines), with the values rendered by {@link
 * CanonicalJson}, so that parser output can be compared with the corpus's {@code results.jsonl}.
 *
 * <p>One line per result, terminated by a single {@code '\n'} (shown wrapped here):
 *
 * <pre>{@code
 * {"stream":5,"columns":[{"keyspace":"ks","table":"t","name":"id","type":"int"},{...}],
 *  "row_count":2,"rows":[[1,"a"],[2,null]]}
 * }</pre>
 *
 * <ul>
 *   <li>The optional leading members ({@code "stream":5} above) are those set with {@link
 *       #setLeadingMembers} before the result began.
 *   <li>{@code columns} lists the written columns in order; {@code type} is the CQL spelling of
 *       {@link ColumnSpec#type()}.
 *   <li>{@code row_count} is the {@code rows_count} announced by {@link #onResultStart}.
 *   <li>Each row is an array aligned with {@code columns}. A NULL cell is {@code null}, a not-set
 *       cell {@code {"not_set":true}}, an empty (zero-length) cell {@link CanonicalJson#appendEmpty
 *       its type's empty rendering}.
 * </ul>
 *
 * <p>A result is buffered in a reused {@code StringBuilder} and written with one {@link
 * Appendable#append(CharSequence)} in {@link #onResultEnd}; a result whose parse aborts writes
 * nothing. The sink never flushes or closes the output. {@link IOException}s from the output are
 * rethrown as {@link UncheckedIOException}, which aborts the parse.
 *
 * <p>Borrowed buffers and vector views are read during the call and never kept.
 *
 * <p>Not thread-safe: one instance per output, fed by one parser at a time.
 */
public final class JsonLinesSink implements RowSink {
  /** Above this many chars the buffer is dropped after a write rather than kept for reuse. */
  private static final int MAX_RETAINED_CAPACITY = 1 << 20;

  /** Where lines go. */
  private final Appendable out;

  /** The current result's line, reused between results. */
  private final StringBuilder line = new StringBuilder(256);

  /** Raw members for the next result, or null. */
  private String leadingMembers;

  /** Columns to write from the next result on. */
  private ColumnSelection selection = ColumnSelection.ALL;

  /** The selection in force for the current result; null for all. */
  private BitSet resultSelection;

  /** The current result's columns, for the types of empty cells. */
  private ResultColumns columns;

  /** Rows begun in the current result. */
  private int rowsStarted;

  /** Whether the next cell is the first of its row. */
  private boolean firstCell;

  /**
   * Creates a sink writing to {@code out}.
   *
   * @param out the output, e.g. a {@code Writer} or a {@code StringBuilder}; one line is appended
   *     per result
   */
  public JsonLinesSink(Appendable out) {
    this.out = Objects.requireNonNull(out, "out");
  }

  /**
   * Sets raw JSON members to put first in the next result's object, e.g. {@code "stream":5} or
   * {@code "frame":3,"stream":5}. They are inserted verbatim, followed by a comma, and are not
   * checked: the caller makes sure they are valid JSON members. They are consumed by the next
   * {@link #onResultStart} only.
   *
   * @param rawJsonMembers the members without the enclosing braces or a trailing comma; {@code
   *     null} or empty for none
   */
  public void setLeadingMembers(String rawJsonMembers) {
    this.leadingMembers =
        rawJsonMembers == null || rawJsonMembers.isEmpty() ? null : rawJsonMembers;
  }

  /**
   * Writes only these columns, by zero-based index, from the next result on. The others are left
   * out of both {@code columns} and the rows, and are skipped undecoded by the parser (see {@link
   * #wantsColumn}). Columns are always written in result order; indexes past the last column are
   * ignored.
   *
   * @param columnIndexes the columns to write
   * @throws IllegalArgumentException if an index is negative
   */
  public void selectColumns(int... columnIndexes) {
    this.selection = ColumnSelection.ofIndexes(columnIndexes);
  }

  /** Writes every column (the default) from the next result on. */
  public void selectAllColumns() {
    this.selection = ColumnSelection.ALL;
  }

  /**
   * Writes only the columns with these exact names (internal form), in result order, from the next
   * result on; names a result does not have are ignored, so a result with none of them has an empty
   * {@code columns} list. Replaces any selection by index.
   */
  public void selectColumnsByName(String... names) {
    this.selection = ColumnSelection.ofNames(names);
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    line.setLength(0); // drops the remains of an aborted result
    columns = metadata.columns();
    resultSelection = selection.resolve(columns);
    rowsStarted = 0;
    line.append('{');
    if (leadingMembers != null) {
      line.append(leadingMembers).append(',');
      leadingMembers = null;
    }
    line.append("\"columns\":[");
    boolean first = true;
    for (int i = 0; i < columns.size(); i++) {
      if (wantsColumn(i)) {
        if (!first) {
          line.append(',');
        }
        first = false;
        appendColumn(columns.get(i));
      }
    }
    line.append("],\"row_count\":").append(rowCount).append(",\"rows\":[");
  }

  private void appendColumn(ColumnSpec spec) {
    line.append("{\"keyspace\":");
    CanonicalJson.appendString(line, spec.keyspace());
    line.append(",\"table\":");
    CanonicalJson.appendString(line, spec.table());
    line.append(",\"name\":");
    CanonicalJson.appendString(line, spec.name());
    line.append(",\"type\":");
    CanonicalJson.appendString(line, spec.type().toString());
    line.append('}');
  }

  /** True for the selected columns (all by default; see {@link #selectColumns}). */
  @Override
  public boolean wantsColumn(int column) {
    return resultSelection == null || resultSelection.get(column);
  }

  @Override
  public void onRowStart(int row) {
    line.append(rowsStarted++ == 0 ? "[" : ",[");
    firstCell = true;
  }

  @Override
  public void onRowEnd(int row) {
    line.append(']');
  }

  /** Appends the end of the line and writes it to the output. */
  @Override
  public void onResultEnd(int rowCount) {
    line.append("]}\n");
    try {
      out.append(line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      line.setLength(0);
      if (line.capacity() > MAX_RETAINED_CAPACITY) {
        line.trimToSize(); // one huge result should not pin its buffer for the sink's lifetime
      }
      columns = null;
    }
  }

  /** The line, after the separator that precedes the next cell of the row. */
  private StringBuilder cell() {
    if (firstCell) {
      firstCell = false;
    } else {
      line.append(',');
    }
    return line;
  }

  @Override
  public void onNull(int column) {
    cell().append("null");
  }

  @Override
  public void onNotSet(int column) {
    cell().append(CanonicalJson.NOT_SET);
  }

  @Override
  public void onEmpty(int column) {
    CanonicalJson.appendEmpty(cell(), columns.get(column).type());
  }

  @Override
  public void onObject(int column, Object value) {
    CanonicalJson.appendValue(cell(), value);
  }

  @Override
  public void onBoolean(int column, boolean value) {
    cell().append(value);
  }

  @Override
  public void onTinyint(int column, byte value) {
    cell().append(value);
  }

  @Override
  public void onSmallint(int column, short value) {
    cell().append(value);
  }

  @Override
  public void onInt(int column, int value) {
    cell().append(value);
  }

  @Override
  public void onBigint(int column, long value) {
    CanonicalJson.appendQuoted(cell(), value);
  }

  @Override
  public void onFloat(int column, float value) {
    CanonicalJson.appendQuoted(cell(), value);
  }

  @Override
  public void onDouble(int column, double value) {
    CanonicalJson.appendQuoted(cell(), value);
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    cell().append('"').append(Instant.ofEpochMilli(epochMillis)).append('"');
  }

  @Override
  public void onDate(int column, int epochDays) {
    cell().append('"').append(LocalDate.ofEpochDay(epochDays)).append('"');
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    cell().append('"').append(LocalTime.ofNanoOfDay(nanosOfDay)).append('"');
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    cell().append('"').append(new UUID(mostSigBits, leastSigBits)).append('"');
  }

  @Override
  public void onString(int column, String value) {
    CanonicalJson.appendString(cell(), value);
  }

  /** Appends {@code "0x"} and the readable bytes in hex; the buffer's indexes do not move. */
  @Override
  public void onBlob(int column, ByteBuf value) {
    StringBuilder sb = cell().append("\"0x");
    for (int i = value.readerIndex(), end = value.writerIndex(); i < end; i++) {
      CanonicalJson.appendHexByte(sb, value.getByte(i));
    }
    sb.append('"');
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    StringBuilder sb = cell().append('[');
    for (int i = 0; i < value.dimension(); i++) {
      CanonicalJson.appendQuoted(i > 0 ? sb.append(',') : sb, value.get(i));
    }
    sb.append(']');
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    StringBuilder sb = cell().append('[');
    for (int i = 0; i < value.dimension(); i++) {
      CanonicalJson.appendQuoted(i > 0 ? sb.append(',') : sb, value.get(i));
    }
    sb.append(']');
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    StringBuilder sb = cell().append('[');
    for (int i = 0; i < value.dimension(); i++) {
      (i > 0 ? sb.append(',') : sb).append(value.get(i));
    }
    sb.append(']');
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    StringBuilder sb = cell().append('[');
    for (int i = 0; i < value.dimension(); i++) {
      CanonicalJson.appendQuoted(i > 0 ? sb.append(',') : sb, value.get(i));
    }
    sb.append(']');
  }
}
