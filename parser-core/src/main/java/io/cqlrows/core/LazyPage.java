package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.IllegalReferenceCountException;
import java.util.AbstractList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The rows of one ROWS result, read lazily: the page keeps the result's bytes and where each cell
 * starts, and a {@link LazyRow} decodes a cell only when a getter asks for it. A page is made by
 * {@link ResultReader} (or {@link ResultStream}) for a {@link LazyPageSink}.
 *
 * <p><b>Checked when made.</b> Before a page exists, every cell has been checked as the eager
 * sinks' parse checks it: lengths, counts and nesting, fixed widths, times of day, and text (strict
 * UTF-8 and ascii unless {@link ParseLimits#replaceMalformedText()}), with the same {@link
 * CqlParseException} for the same bytes. A getter therefore never throws for a value; it throws
 * only for a misuse (a column index out of range, a getter of another type, a released page).
 *
 * <p><b>Cost.</b> Making a page costs one pass over the cells and one {@code int} per row (where it
 * starts); values cost nothing until read, and each read decodes again: read a value once and keep
 * it if it is needed twice. Columns never read cost only their check. A row finds a cell by
 * stepping over the lengths of the cells before it, from the last cell it read (or from the row's
 * start for an earlier column), so reading columns in order costs one step per column.
 *
 * <p><b>Ownership.</b> A page is reference counted and owns its bytes: by default a retained slice
 * of the RESULT body it was read from (no copy), or a heap copy of the rows when its sink copies
 * ({@link LazyPageSink#copying()}), the body spans several buffers, or the body arrived in pieces
 * ({@link ResultStream}). Whoever takes a page from its sink releases it exactly once ({@link
 * #release()}, or {@link #close()} in a try-with-resources), which releases the bytes; a page keeps
 * a pooled buffer from returning to its pool until then. Rows, buffers and vector views read from a
 * page are valid only while it is: reading them after its release is a misuse (getters of a
 * released page throw {@link IllegalReferenceCountException}; a {@code ByteBuffer} or vector view
 * kept past it may read memory the pool has reused). Copy what outlives the page.
 *
 * <p><b>Threading.</b> Reference counting is thread-safe. Reading rows keeps no state in the page,
 * so a page handed to other threads safely (a queue, a future) can be read by several of them at
 * once, each through its own {@link LazyRow}s, as long as none releases the page meanwhile.
 */
public final class LazyPage extends AbstractReferenceCounted
    implements Iterable<LazyRow>, AutoCloseable {
  private final RowsMetadata metadata;
  private final ResultColumns columns;
  private final int rows;

  /** Number of columns. */
  final int width;

  final ValueDeserializer[] deserializers;

  /** Per column, its {@link InlineCells} kind. */
  final int[] kinds;

  /** The rows' bytes, owned; null once released. */
  private ByteBuf buf;

  /** {@link #buf}'s backing array and the index of its byte 0 there; null without one. */
  private byte[] array;

  private int base;

  /** Per row, the index in {@link #buf} of its first cell's length; null once released. */
  private int[] rowStarts;

  private final List<LazyRow> view = new RowList();

  private LazyPage(
      RowsMetadata metadata,
      ValueDeserializer[] deserializers,
      int[] kinds,
      int rows,
      ByteBuf buf,
      int[] rowStarts) {
    this.metadata = metadata;
    this.columns = metadata.columns();
    this.deserializers = deserializers;
    this.kinds = kinds;
    this.width = kinds.length;
    this.rows = rows;
    this.buf = buf;
    this.rowStarts = rowStarts;
    if (buf.hasArray()) {
      this.array = buf.array();
      this.base = buf.arrayOffset();
    }
  }

  /**
   * Indexes the rows of a result whose metadata and {@code rows_count} have been read.
   *
   * @param header the result's columns and row count
   * @param buf the body. Borrowed: retained by the page unless {@code copy}.
   * @param bodyStart index of the body's first byte, for error offsets
   * @param from index of the first row
   * @param end index after the body
   * @param copy whether the page copies the rows instead of retaining {@code buf}
   * @throws CqlParseException if a row is malformed; nothing is retained then
   */
  static LazyPage index(
      RowsParser header, ByteBuf buf, int bodyStart, int from, int end, boolean copy) {
    ValueDeserializer[] d = header.deserializers();
    int[] kinds = new int[d.length];
    for (int c = 0; c < kinds.length; c++) {
      kinds[c] = InlineCells.kindOf(d[c]);
    }
    int rows = header.rowCount();
    int[] rowStarts = new int[rows]; // rows_count was checked against the bytes
    int after =
        RowsIndexer.index(buf, bodyStart, from, end, header.metadata(), d, kinds, rows, rowStarts);
    int length = after - from;
    ByteBuf bytes;
    if (copy) {
      bytes = Unpooled.buffer(length, length).writeBytes(buf, from, length);
    } else {
      bytes = buf.retainedSlice(from, length);
    }
    return new LazyPage(header.metadata(), d, kinds, rows, bytes, rowStarts);
  }

  /** The result's metadata: columns, paging state, new metadata id. */
  public RowsMetadata metadata() {
    return metadata;
  }

  /** The result's columns. */
  public ResultColumns columns() {
    return columns;
  }

  /** Number of rows. */
  public int size() {
    return rows;
  }

  /**
   * Row {@code index}: a new view on each call.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= index < size()}
   */
  public LazyRow row(int index) {
    return new LazyRow(this, Objects.checkIndex(index, rows));
  }

  /** The rows, as an unmodifiable list of views (made on each {@code get}). */
  public List<LazyRow> rows() {
    return view;
  }

  /** The rows in order; each {@code next} makes a new view. */
  @Override
  public Iterator<LazyRow> iterator() {
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < rows;
      }

      @Override
      public LazyRow next() {
        if (next >= rows) {
          throw new NoSuchElementException();
        }
        return new LazyRow(LazyPage.this, next++);
      }
    };
  }

  /** Releases this page: {@link #release()}, for try-with-resources. */
  @Override
  public void close() {
    release();
  }

  @Override
  public LazyPage retain() {
    super.retain();
    return this;
  }

  @Override
  public LazyPage retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public LazyPage touch() {
    return touch(null);
  }

  @Override
  public LazyPage touch(Object hint) {
    ByteBuf b = buf;
    if (b != null) {
      b.touch(hint);
    }
    return this;
  }

  @Override
  protected void deallocate() {
    ByteBuf b = buf;
    buf = null;
    array = null;
    rowStarts = null;
    b.release();
  }

  // Reads for LazyRow. Every cell read starts with rowStart(), which fails on a released page.

  /** The index of the length of row {@code row}'s first cell. */
  int rowStart(int row) {
    int[] r = rowStarts;
    if (r == null) {
      throw new IllegalReferenceCountException(0);
    }
    return r[row];
  }

  /** The bytes; only after {@link #rowStart} succeeded. */
  ByteBuf buf() {
    return buf;
  }

  // Big-endian reads: from the backing array through the VarHandles straight (one call level
  // less than through InlineCells, which keeps a getter's whole read inlinable), else the buffer.

  byte int8(int at) {
    byte[] a = array;
    return a != null ? a[base + at] : buf.getByte(at);
  }

  short int16(int at) {
    byte[] a = array;
    return a != null ? (short) InlineCells.SHORT_BE.get(a, base + at) : buf.getShort(at);
  }

  int int32(int at) {
    byte[] a = array;
    return a != null ? (int) InlineCells.INT_BE.get(a, base + at) : buf.getInt(at);
  }

  long int64(int at) {
    byte[] a = array;
    return a != null ? (long) InlineCells.LONG_BE.get(a, base + at) : buf.getLong(at);
  }

  /** A copy of {@code length} bytes at {@code at}. */
  byte[] copy(int at, int length) {
    byte[] a = array;
    if (a != null) {
      return java.util.Arrays.copyOfRange(a, base + at, base + at + length);
    }
    byte[] out = new byte[length];
    buf.getBytes(at, out);
    return out;
  }

  /** A read-only view of {@code length} bytes at {@code at}, its position 0. */
  java.nio.ByteBuffer view(int at, int length) {
    byte[] a = array;
    java.nio.ByteBuffer b =
        a != null
            ? java.nio.ByteBuffer.wrap(a, base + at, length).slice()
            : buf.nioBuffer(at, length);
    return b.asReadOnlyBuffer();
  }

  /** UTF-8 text that the index checked (or that replaces malformed bytes). */
  String utf8(int at, int length) {
    byte[] a = array;
    return a != null
        ? new String(a, base + at, length, java.nio.charset.StandardCharsets.UTF_8)
        : buf.toString(at, length, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "LazyPage(" + rows + " rows, " + columns + ", refCnt " + refCnt() + ")";
  }

  private final class RowList extends AbstractList<LazyRow> implements RandomAccess {
    @Override
    public int size() {
      return rows;
    }

    @Override
    public LazyRow get(int index) {
      return row(index);
    }

    @Override
    public Iterator<LazyRow> iterator() {
      return LazyPage.this.iterator();
    }
  }
}
