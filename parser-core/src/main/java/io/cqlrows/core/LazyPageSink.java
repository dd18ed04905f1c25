package io.cqlrows.core;

import java.util.ArrayDeque;

/**
 * The sink that makes {@link LazyPage}s: given to {@link ResultReader#read} (or {@link
 * ResultReader#stream}, or anything built on them, such as a pipeline's rows handler), it receives
 * each ROWS result as one page, checked and indexed but not decoded, and holds it until taken.
 *
 * <pre>{@code
 * LazyPageSink sink = new LazyPageSink();
 * reader.read(body, sink);                      // body stays the caller's; the page retains it
 * try (LazyPage page = sink.poll()) {           // the caller now owns the page
 *   for (LazyRow row : page) {
 *     int id = row.getInt(0);                   // only the cells read are decoded
 *     row.floatVector(1).copyTo(embedding, 0);  // into the caller's array, no allocation
 *   }
 * }
 * }</pre>
 *
 * <p>Unlike the other sinks, this one is not fed cell by cell: the reader recognises it and hands
 * it whole pages. Its cell events ({@link #onRowStart}, {@link #onNull}, ...) throw {@link
 * UnsupportedOperationException}, so a wrapper that forwards events to it fails at once instead of
 * losing rows; give it to the reader itself.
 *
 * <p><b>Ownership.</b> A page in the sink is the sink's until {@link #poll()} hands it to the
 * caller, who must then release it. {@link #close()} releases the pages not taken. By default a
 * page retains the RESULT body (a slice of it, no copy), so the frame's buffer stays allocated
 * while the page lives; {@link #copying()} makes each page copy its rows instead, for pages kept
 * long or a pool that should get its buffers back at once. A body over several buffers, or fed in
 * pieces to a {@link ResultStream}, is always copied once, into the page's own heap buffer.
 *
 * <p><b>Threading.</b> Not thread-safe: the reader's thread adds pages; take them on that thread,
 * or hand the sink over with a happens-before edge (a completed future, say).
 */
public final class LazyPageSink implements RowSink, AutoCloseable {
  private final boolean copy;
  private final ArrayDeque<LazyPage> pages = new ArrayDeque<>();

  /** A sink whose pages retain the RESULT body they are read from. */
  public LazyPageSink() {
    this(false);
  }

  private LazyPageSink(boolean copy) {
    this.copy = copy;
  }

  /** A sink whose pages copy their rows' bytes, once, instead of retaining the body. */
  public static LazyPageSink copying() {
    return new LazyPageSink(true);
  }

  /** Whether this sink's pages copy their rows. */
  public boolean copies() {
    return copy;
  }

  /** Adds a page made by the reader; the sink owns it from here. */
  void add(LazyPage page) {
    pages.add(page);
  }

  /**
   * The oldest page not yet taken, or {@code null} if there is none. The caller owns it and must
   * release it.
   */
  public LazyPage poll() {
    return pages.poll();
  }

  /** Pages received and not yet taken. */
  public int pageCount() {
    return pages.size();
  }

  /** Releases every page not yet taken. The sink can go on receiving pages. */
  @Override
  public void close() {
    LazyPage p;
    while ((p = pages.poll()) != null) {
      p.release();
    }
  }

  @Override
  public String toString() {
    return "LazyPageSink(" + pages.size() + " pages" + (copy ? ", copying" : "") + ")";
  }

  private static UnsupportedOperationException notCellByCell() {
    return new UnsupportedOperationException(
        "a LazyPageSink takes whole pages from ResultReader or ResultStream, not cell events");
  }

  @Override
  public void onRowStart(int row) {
    throw notCellByCell();
  }

  @Override
  public void onRowEnd(int row) {
    throw notCellByCell();
  }

  @Override
  public void onNull(int column) {
    throw notCellByCell();
  }

  @Override
  public void onNotSet(int column) {
    throw notCellByCell();
  }

  @Override
  public void onEmpty(int column) {
    throw notCellByCell();
  }

  @Override
  public void onObject(int column, Object value) {
    throw notCellByCell();
  }
}
