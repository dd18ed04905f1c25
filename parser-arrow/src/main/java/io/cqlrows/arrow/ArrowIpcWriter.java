package io.cqlrows.arrow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the batches of an {@link ArrowSink} as Arrow IPC: the file format ({@code .arrow}, what
 * {@code pyarrow.ipc.open_file} and DuckDB read) or the stream format. One schema per writer, taken
 * from the first batch; one record batch per batch the sink completes (per page, or per {@link
 * ArrowSink#maxBatchRows} rows).
 *
 * <pre>{@code
 * try (BufferAllocator allocator = new RootAllocator();
 *      ArrowSink sink = new ArrowSink(allocator).reuseVectors(true);
 *      ArrowIpcWriter out = ArrowIpcWriter.file(FileChannel.open(path, CREATE, WRITE))) {
 *   sink.onBatch(out);
 *   for (ByteBuf page : pages) {
 *     reader.read(page, sink);
 *   }
 * }
 * }</pre>
 *
 * <p><b>Ownership.</b> The writer owns the channel and closes it in {@link #close()}, after the
 * file's footer (or the stream's end marker). It never keeps a batch: each is serialised during
 * {@link #accept}. A writer closed before any batch writes nothing. An I/O error is an {@link
 * UncheckedIOException} from {@link #accept}, which stops the parse feeding the sink; a batch whose
 * schema differs from the first is an {@link IllegalStateException}. Not thread-safe.
 */
public final class ArrowIpcWriter implements Consumer<VectorSchemaRoot>, AutoCloseable {
  private final WritableByteChannel channel;
  private final boolean file;
  private Out out;
  private Schema schema;
  private long batches;
  private long rows;

  private ArrowIpcWriter(WritableByteChannel channel, boolean file) {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.file = file;
  }

  /** The Arrow IPC file format (random access, with a footer). */
  public static ArrowIpcWriter file(WritableByteChannel channel) {
    return new ArrowIpcWriter(channel, true);
  }

  /** The Arrow IPC stream format (sequential, ends with an end-of-stream marker). */
  public static ArrowIpcWriter stream(WritableByteChannel channel) {
    return new ArrowIpcWriter(channel, false);
  }

  /** Writes {@code batch} as one record batch; the first one also writes the schema. */
  @Override
  public void accept(VectorSchemaRoot batch) {
    if (out == null) {
      schema = batch.getSchema();
      out = file ? new FileOut(batch, channel) : new StreamOut(batch, channel);
    } else if (!batch.getSchema().equals(schema)) {
      throw new IllegalStateException(
          "a batch with another schema than the first: " + batch.getSchema() + ", not " + schema);
    }
    try {
      out.write(batch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    batches++;
    rows += batch.getRowCount();
  }

  /** Record batches written. */
  public long batches() {
    return batches;
  }

  /** Rows written, over all batches. */
  public long rows() {
    return rows;
  }

  /** The schema of the first batch, or {@code null} before it. */
  public Schema schema() {
    return schema;
  }

  /**
   * Ends the file or stream and closes the channel.
   *
   * @throws IOException if the channel cannot be written or closed
   */
  @Override
  public void close() throws IOException {
    if (out == null) {
      channel.close();
      return;
    }
    try {
      out.writer().end();
    } finally {
      out.writer().close();
    }
  }

  /** An Arrow writer that writes batches of any root with its schema, not only its own. */
  private interface Out {
    void write(VectorSchemaRoot batch) throws IOException;

    ArrowWriter writer();
  }

  private static final class FileOut extends ArrowFileWriter implements Out {
    FileOut(VectorSchemaRoot root, WritableByteChannel channel) {
      super(root, null, channel);
    }

    @Override
    public void write(VectorSchemaRoot batch) throws IOException {
      start();
      try (ArrowRecordBatch b = new VectorUnloader(batch).getRecordBatch()) {
        writeRecordBatch(b);
      }
    }

    @Override
    public ArrowWriter writer() {
      return this;
    }
  }

  private static final class StreamOut extends ArrowStreamWriter implements Out {
    StreamOut(VectorSchemaRoot root, WritableByteChannel channel) {
      super(root, null, channel);
    }

    @Override
    public void write(VectorSchemaRoot batch) throws IOException {
      start();
      try (ArrowRecordBatch b = new VectorUnloader(batch).getRecordBatch()) {
        writeRecordBatch(b);
      }
    }

    @Override
    public ArrowWriter writer() {
      return this;
    }
  }
}
