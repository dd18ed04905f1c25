package io.cqlrows.arrow;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link RowSink} that fills Arrow vectors: each ROWS result becomes a {@link VectorSchemaRoot}
 * (or several, with {@link #maxBatchRows}) whose schema {@link ArrowMapping} derives from the
 * result's columns. Vector cells of float, double, int and bigint are copied in bulk into the child
 * buffer of a {@code FixedSizeList}; primitive cells are stored without a Java object.
 *
 * <pre>{@code
 * try (BufferAllocator allocator = new RootAllocator();
 *      ArrowSink sink = new ArrowSink(allocator)) {
 *   reader.read(body, sink);                 // a RESULT body, from cqlrows-core's ResultReader
 *   VectorSchemaRoot batch = sink.root();    // the result's rows; the sink still owns it
 * }
 * }</pre>
 *
 * <p><b>Ownership.</b> The caller owns the {@link BufferAllocator} and closes it after the sink.
 * The sink owns the root it fills: {@link #root()} lends it (valid until the next result starts, or
 * until {@link #close()}); {@link #takeRoot()} hands it over, and the caller must close it. {@link
 * #close()} frees what the sink still owns, also after a parse that failed half-way, so closing the
 * sink and then the allocator never finds an outstanding buffer.
 *
 * <p><b>Batches.</b> By default a result is one batch, complete at {@link #onResultEnd}. With
 * {@link #onBatch} the sink hands every batch to a listener as soon as it is complete; with {@link
 * #maxBatchRows} as well, a batch holds at most that many rows, so a huge page needs the memory of
 * one batch only. A result with no rows is one empty batch.
 *
 * <p><b>Reuse.</b> With {@link #reuseVectors}, a result whose schema equals the previous one's (the
 * pages of one query) refills the same root and the same buffers, so paging allocates nothing once
 * the buffers have grown to a page; the root's contents are then replaced by each batch. Without
 * it, each result gets a new root and the previous one is closed.
 *
 * <p>A cell the mapping cannot represent throws {@link ArrowMappingException} from the sink event
 * (see {@link ArrowMapping}). Not thread-safe: one sink per parser thread.
 */
public final class ArrowSink implements RowSink, AutoCloseable {
  private final BufferAllocator allocator;
  private final ArrowMapping mapping;
  private boolean reuse;
  private int maxBatchRows = Integer.MAX_VALUE;
  private Consumer<VectorSchemaRoot> listener;

  /** Exact column names to keep, or null for all. */
  private Set<String> selected;

  private VectorSchemaRoot root;

  /** By result column; null for a column not selected. */
  private ValueWriter[] writers = new ValueWriter[0];

  /** Whether the root's buffers are allocated (a new root gets them on its first rows). */
  private boolean allocated;

  private List<ColumnSpec> columns = List.of();
  private int rowsInResult;
  private int batchStart;
  private int batchRow;
  private int batchesInResult;
  private long batches;
  private long notSetCells;
  private long emptyCells;
  private boolean closed;

  /** A sink with {@link ArrowMapping#defaults()}, allocating from {@code allocator}. */
  public ArrowSink(BufferAllocator allocator) {
    this(allocator, ArrowMapping.defaults());
  }

  /** A sink with this mapping, allocating from {@code allocator} (which the caller closes). */
  public ArrowSink(BufferAllocator allocator, ArrowMapping mapping) {
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    this.mapping = Objects.requireNonNull(mapping, "mapping");
  }

  /**
   * Refill the same root and buffers for a result with the same schema (see the class
   * documentation).
   *
   * @return this sink
   */
  public ArrowSink reuseVectors(boolean enabled) {
    this.reuse = enabled;
    return this;
  }

  /**
   * Hands each complete batch to {@code listener}, which may read or write it (to an Arrow IPC
   * writer, say) but not keep it: the root is lent for the call, and the next batch overwrites or
   * replaces it.
   *
   * @return this sink
   */
  public ArrowSink onBatch(Consumer<VectorSchemaRoot> listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * At most {@code rows} rows per batch: a result with more is handed to the {@link #onBatch}
   * listener in parts, each in the same root.
   *
   * @return this sink
   * @throws IllegalArgumentException if {@code rows < 1}
   */
  public ArrowSink maxBatchRows(int rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("rows: " + rows + " (expected: >= 1)");
    }
    this.maxBatchRows = rows;
    return this;
  }

  /**
   * Keeps only the columns with these exact names (internal form), from the next result on; the
   * parser skips the others undecoded.
   *
   * @return this sink
   */
  public ArrowSink selectColumnsByName(String... names) {
    this.selected = new HashSet<>(Arrays.asList(names));
    return this;
  }

  /** The root of the last batch, still owned by the sink; {@code null} before the first. */
  public VectorSchemaRoot root() {
    return root;
  }

  /**
   * Hands the root of the last batch to the caller, who must close it; the next result gets a new
   * root.
   *
   * @return the root, or {@code null} if there is none
   */
  public VectorSchemaRoot takeRoot() {
    VectorSchemaRoot r = root;
    root = null;
    writers = new ValueWriter[0];
    return r;
  }

  /** The mapping in use. */
  public ArrowMapping mapping() {
    return mapping;
  }

  /** Not-set cells (wire length -2) written as null, since the sink was made. */
  public long notSetCells() {
    return notSetCells;
  }

  /** Empty cells of types whose empty value is not a value, written as null. */
  public long emptyCells() {
    return emptyCells;
  }

  /** Batches completed since the sink was made. */
  public long batches() {
    return batches;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    if (maxBatchRows != Integer.MAX_VALUE && listener == null) {
      throw new IllegalStateException("maxBatchRows needs an onBatch listener");
    }
    List<ColumnSpec> all = metadata.columns().specs();
    List<ColumnSpec> kept = new ArrayList<>(all.size());
    for (ColumnSpec c : all) {
      if (selected == null || selected.contains(c.name())) {
        kept.add(c);
      }
    }
    Schema schema = mapping.schema(kept);
    if (reuse && root != null && root.getSchema().equals(schema) && columns.equals(all)) {
      resetBatch();
    } else {
      if (root != null) {
        root.close();
        root = null;
      }
      root = VectorSchemaRoot.create(schema, allocator);
      allocated = false;
      writers = new ValueWriter[all.size()];
      List<FieldVector> vectors = root.getFieldVectors();
      for (int i = 0, v = 0; i < all.size(); i++) {
        if (selected == null || selected.contains(all.get(i).name())) {
          writers[i] = Writers.forVector(vectors.get(v++), all.get(i).type(), mapping);
        }
      }
      columns = all;
    }
    rowsInResult = rowCount;
    batchStart = 0;
    batchRow = 0;
    batchesInResult = 0;
  }

  /** Allocates a new root's buffers for the rows this result can hold, at most one batch. */
  @Override
  public void onRowsContentLength(int bytes) {
    if (!allocated) {
      allocate(Math.min(rowsInResult, maxBatchRows), bytes);
    }
  }

  private void allocate(int rows, int bytes) {
    for (int i = 0; i < writers.length; i++) {
      ValueWriter w = writers[i];
      if (w == null) {
        continue;
      }
      int n = rows;
      if (w instanceof PrimitiveVectorWriter p) {
        // the rows with a value cannot take more than the bytes left: 4 + N x width each
        long perRow = 4L + (long) p.dimension * p.child.getTypeWidth();
        n = (int) Math.min(rows, bytes / perRow + 1);
      }
      w.vector.setInitialCapacity(Math.max(n, 1));
      w.vector.allocateNew();
    }
    allocated = true;
  }

  @Override
  public boolean wantsColumn(int column) {
    return writers[column] != null;
  }

  @Override
  public void onRowStart(int row) {
    if (!allocated) {
      allocate(Math.min(rowsInResult, maxBatchRows), Integer.MAX_VALUE);
    }
    if (batchRow == maxBatchRows) {
      emit();
      resetBatch();
      batchStart = row;
    }
    batchRow = row - batchStart;
  }

  @Override
  public void onRowEnd(int row) {
    batchRow = row - batchStart + 1;
  }

  @Override
  public void onResultEnd(int rowCount) {
    if (!allocated) {
      allocate(0, 0);
    }
    if (batchRow > 0 || batchesInResult == 0) {
      emit();
    }
  }

  private void emit() {
    for (ValueWriter w : writers) {
      if (w != null) {
        w.finish(batchRow);
      }
    }
    root.setRowCount(batchRow);
    batches++;
    batchesInResult++;
    if (listener != null) {
      listener.accept(root);
    }
  }

  private void resetBatch() {
    for (ValueWriter w : writers) {
      if (w != null) {
        w.reset();
      }
    }
    root.setRowCount(0);
    batchRow = 0;
  }

  @Override
  public void onNull(int column) {
    writers[column].writeNull(batchRow);
  }

  @Override
  public void onNotSet(int column) {
    notSetCells++;
    writers[column].writeNull(batchRow);
  }

  @Override
  public void onEmpty(int column) {
    emptyCells++;
    writers[column].writeNull(batchRow);
  }

  @Override
  public void onObject(int column, Object value) {
    try {
      writers[column].write(batchRow, value);
    } catch (ValueWriter.Unrepresentable e) {
      throw new ArrowMappingException(
          e.reason, batchStart + batchRow, column, columns.get(column).name(), e.value);
    }
  }

  @Override
  public void onBoolean(int column, boolean value) {
    writers[column].onBoolean(batchRow, value);
  }

  @Override
  public void onTinyint(int column, byte value) {
    writers[column].onInt(batchRow, value);
  }

  @Override
  public void onSmallint(int column, short value) {
    writers[column].onInt(batchRow, value);
  }

  @Override
  public void onInt(int column, int value) {
    writers[column].onInt(batchRow, value);
  }

  @Override
  public void onBigint(int column, long value) {
    writers[column].onBigint(batchRow, value);
  }

  @Override
  public void onFloat(int column, float value) {
    writers[column].onFloat(batchRow, value);
  }

  @Override
  public void onDouble(int column, double value) {
    writers[column].onDouble(batchRow, value);
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    writers[column].onTimestamp(batchRow, epochMillis);
  }

  @Override
  public void onDate(int column, int epochDays) {
    writers[column].onDate(batchRow, epochDays);
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    writers[column].onTime(batchRow, nanosOfDay);
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    writers[column].onUuid(batchRow, mostSigBits, leastSigBits);
  }

  @Override
  public void onString(int column, String value) {
    writers[column].onString(batchRow, value);
  }

  @Override
  public void onBlob(int column, ByteBuf value) {
    writers[column].onBlob(batchRow, value);
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    writers[column].onFloatVector(batchRow, value);
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    writers[column].onDoubleVector(batchRow, value);
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    writers[column].onIntVector(batchRow, value);
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    writers[column].onLongVector(batchRow, value);
  }

  /** Frees the root the sink still owns (not one handed out by {@link #takeRoot()}). */
  @Override
  public void close() {
    closed = true;
    if (root != null) {
      root.close();
      root = null;
    }
    writers = new ValueWriter[0];
  }
}
