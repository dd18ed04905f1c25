package io.cqlrows.core.sink;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.netty.buffer.ByteBuf;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * Materialises rows, read back as {@link Row}s with typed getters: the convenient sink, when a page
 * fits comfortably in memory. Values are copied (blobs and vectors included), so rows stay valid
 * after the frame is released. Rows accumulate across results (pages) until {@link #clear()}. Not
 * thread-safe.
 *
 * <p>Each result's rows are stored together, in a few arrays for the whole page: the cells of the
 * fixed-width {@link CellKind}s ({@link CellKind#BOOLEAN} to {@link CellKind#UUID}) unboxed, one
 * reference for every other cell. Nothing is allocated per cell for those kinds while reading, and
 * their value objects ({@code Instant}, {@code UUID}, boxes) are made only when a getter asks for
 * one. A {@link Row} is a view of one stored row: keeping one keeps its page's arrays reachable.
 */
public final class RowsCollector implements RowSink {
  /** Most rows the arrays are sized for ahead of their arrival. */
  private static final int PRESIZE_LIMIT = 1 << 16;

  /** The row bases outside a row: any cell index from them is negative. */
  private static final int CLOSED = Integer.MIN_VALUE / 2;

  private final ArrayList<RowsPage> pages = new ArrayList<>();
  private final List<Row> view = new RowList();

  /** Complete rows in all pages. */
  private int size;

  private RowsMetadata metadata;

  /** The page of the current result, and its layout and arrays, loaded here for the events. */
  private RowsPage page;

  private CellKind[] kinds;
  private boolean[] refs;
  private int[] slots;
  private byte[] states;
  private long[] words;
  private Object[] objects;

  /** Rows the current result may still bring: its rows_count, bounded by its bytes. */
  private int expectedRows;

  /** The page row being written, or -1. */
  private int openRow = -1;

  /** Where the open row's cells, words and references start; {@link #CLOSED} outside a row. */
  private int cells = CLOSED;

  private int wordsAt = CLOSED;
  private int refsAt = CLOSED;

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    this.metadata = metadata;
    if (page != null && page.rows == 0) {
      pages.remove(pages.size() - 1); // a result without rows leaves no page behind
    }
    startPage(new RowsPage(metadata.columns(), size));
    expectedRows = rowCount;
  }

  @Override
  public void onRowsContentLength(int bytes) {
    if (page != null && page.width > 0) {
      // a cell takes at least its 4-byte length
      expectedRows = Math.min(expectedRows, bytes / 4 / page.width);
    }
  }

  private void startPage(RowsPage p) {
    page = p;
    pages.add(p);
    kinds = p.kinds;
    refs = p.refs;
    slots = p.slots;
    loadArrays();
    openRow = -1;
    closeRow();
  }

  private void loadArrays() {
    states = page.states;
    words = page.words;
    objects = page.objects;
  }

  private void closeRow() {
    cells = CLOSED;
    wordsAt = CLOSED;
    refsAt = CLOSED;
  }

  @Override
  public void onRowStart(int row) {
    RowsPage p = page;
    int r = p.rows;
    if (openRow == r) {
      p.clearRow(r); // started before and never completed
    }
    if (r == p.capacity) {
      grow(p, r);
    }
    openRow = r;
    cells = r * p.width;
    wordsAt = r * p.wordsPerRow;
    refsAt = r * p.refsPerRow;
  }

  private void grow(RowsPage p, int r) {
    long want = r == 0 ? Math.min(expectedRows, PRESIZE_LIMIT) : 2L * r;
    if (r < expectedRows) {
      want = Math.min(want, expectedRows); // the claim, when the bytes allow it, is exact
    }
    p.ensureCapacity((int) Math.min(Math.max(want, r + 1L), Integer.MAX_VALUE));
    loadArrays();
  }

  @Override
  public void onRowEnd(int row) {
    if (openRow < 0) {
      throw new IllegalStateException("onRowEnd(" + row + ") without onRowStart");
    }
    page.rows = openRow + 1;
    size++;
    openRow = -1;
    closeRow();
  }

  @Override
  public void onNull(int column) {
    states[cells + Objects.checkIndex(column, kinds.length)] = RowsPage.NULL;
  }

  @Override
  public void onNotSet(int column) {
    states[cells + Objects.checkIndex(column, kinds.length)] = RowsPage.NOT_SET;
  }

  @Override
  public void onEmpty(int column) {
    states[cells + Objects.checkIndex(column, kinds.length)] = RowsPage.EMPTY;
  }

  @Override
  public void onObject(int column, Object value) {
    store(column, value, RowsPage.OBJECT);
  }

  /** A value in its column's reference, or boxed if the column keeps words. */
  private void store(int column, Object value, byte state) {
    states[cells + Objects.checkIndex(column, kinds.length)] = state;
    if (refs[column]) {
      objects[refsAt + slots[column]] = value;
    } else {
      page.boxed()[cells + column] = value;
    }
  }

  /** A value in its column's word; the caller has checked the column's kind. */
  private void word(int column, long value) {
    states[cells + column] = RowsPage.WORDS;
    words[wordsAt + slots[column]] = value;
  }

  // Each typed event keeps its value unboxed when the column is of that type; otherwise (a
  // custom type the parser decodes as a native one, or a sink driven by hand) boxed, as RowSink's
  // default events box it.

  @Override
  public void onBoolean(int column, boolean value) {
    if (kinds[column] == CellKind.BOOLEAN) {
      word(column, value ? 1 : 0);
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onTinyint(int column, byte value) {
    if (kinds[column] == CellKind.TINYINT) {
      word(column, value);
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onSmallint(int column, short value) {
    if (kinds[column] == CellKind.SMALLINT) {
      word(column, value);
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onInt(int column, int value) {
    if (kinds[column] == CellKind.INT) {
      word(column, value);
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onBigint(int column, long value) {
    if (kinds[column] == CellKind.BIGINT) {
      word(column, value);
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onFloat(int column, float value) {
    if (kinds[column] == CellKind.FLOAT) {
      word(column, Float.floatToRawIntBits(value));
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onDouble(int column, double value) {
    if (kinds[column] == CellKind.DOUBLE) {
      word(column, Double.doubleToRawLongBits(value));
    } else {
      onObject(column, value);
    }
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    if (kinds[column] == CellKind.TIMESTAMP) {
      word(column, epochMillis);
    } else {
      onObject(column, java.time.Instant.ofEpochMilli(epochMillis));
    }
  }

  @Override
  public void onDate(int column, int epochDays) {
    if (kinds[column] == CellKind.DATE) {
      word(column, epochDays);
    } else {
      onObject(column, java.time.LocalDate.ofEpochDay(epochDays));
    }
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    if (kinds[column] == CellKind.TIME) {
      word(column, nanosOfDay);
    } else {
      onObject(column, java.time.LocalTime.ofNanoOfDay(nanosOfDay));
    }
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    if (kinds[column] == CellKind.UUID) {
      states[cells + column] = RowsPage.WORDS;
      int at = wordsAt + slots[column];
      words[at] = mostSigBits;
      words[at + 1] = leastSigBits;
    } else {
      onObject(column, new java.util.UUID(mostSigBits, leastSigBits));
    }
  }

  @Override
  public void onString(int column, String value) {
    store(column, value, RowsPage.OBJECT);
  }

  @Override
  public void onBlob(int column, ByteBuf value) {
    int from = value.readerIndex();
    int to = value.writerIndex();
    byte[] copy;
    if (value.hasArray()) {
      // one call into the buffer, and a copy without zeroing first
      int offset = value.arrayOffset();
      copy = Arrays.copyOfRange(value.array(), offset + from, offset + to);
    } else {
      copy = new byte[to - from];
      value.getBytes(from, copy);
    }
    store(column, copy, RowsPage.BLOB);
  }

  /**
   * The rows collected so far: an unmodifiable view, which sees rows collected later too. Its
   * {@code get} and iterator make a new {@link Row} view on each call.
   */
  public List<Row> rows() {
    return view;
  }

  /** Metadata of the last result seen, or {@code null}. */
  public RowsMetadata metadata() {
    return metadata;
  }

  /**
   * Forgets the collected rows (rows already handed out stay readable). Call it between results:
   * rows of a result in progress that are complete by then are forgotten too, the rest are kept.
   */
  public void clear() {
    pages.clear();
    size = 0;
    if (page != null) {
      RowsPage p = new RowsPage(page.columns, 0);
      int open = openRow;
      int expected = expectedRows;
      startPage(p);
      expectedRows = expected;
      if (open >= 0) {
        onRowStart(0); // the open row starts again in the new page, its cells so far lost
      }
    }
  }

  /** The page holding collected row {@code index}. */
  private RowsPage pageOf(int index) {
    int lo = 0;
    int hi = pages.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (pages.get(mid).first <= index) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return pages.get(lo);
  }

  private final class RowList extends AbstractList<Row> implements RandomAccess {
    @Override
    public int size() {
      return size;
    }

    @Override
    public Row get(int index) {
      Objects.checkIndex(index, size);
      RowsPage p = pageOf(index);
      return new Row(p, index - p.first);
    }

    @Override
    public Iterator<Row> iterator() {
      return new RowIterator();
    }
  }

  private final class RowIterator implements Iterator<Row> {
    private int index;
    private int pageIndex;
    private int row;

    @Override
    public boolean hasNext() {
      return index < size;
    }

    @Override
    public Row next() {
      if (index >= size) {
        throw new NoSuchElementException();
      }
      RowsPage p = pages.get(pageIndex);
      while (row >= p.rows) {
        p = pages.get(++pageIndex);
        row = 0;
      }
      index++;
      return new Row(p, row++);
    }
  }
}
