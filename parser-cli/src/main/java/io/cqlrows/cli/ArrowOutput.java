package io.cqlrows.cli;

import io.cqlrows.arrow.ArrowIpcWriter;
import io.cqlrows.arrow.ArrowMapping;
import io.cqlrows.arrow.ArrowSink;
import io.cqlrows.core.RowSink;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;

/**
 * {@code --format arrow}: ROWS results as Arrow IPC files. Into a directory, one file per result,
 * named {@code NNNNN-CONNECTION-streamS-QUERY.arrow} (NNNNN counts the files of the run, in capture
 * order); or into one file, the results of the one stream {@code --stream} names (the pages of its
 * query), one record batch per result. A stream that goes on with another query (other columns)
 * goes on in {@code FILE-2.arrow}, {@code FILE-3.arrow}, ...: one schema per file. A file is opened
 * when its first batch is complete, so a result that fails to parse leaves no file. Prints each
 * file written, with its rows, on {@code out}.
 *
 * <p>With a minimum of rows per batch, small results (the pages of a query) are gathered into one
 * record batch until it holds that many rows (or the schema changes, or the output ends); memory
 * then holds that batch and one result.
 */
final class ArrowOutput implements AutoCloseable {
  /** The longest part of a file name taken from a query. */
  private static final int QUERY_CHARS = 60;

  private final Path output;
  private final boolean oneFile;
  private final PrintStream out;
  private final BufferAllocator allocator = new RootAllocator();
  private final ArrowSink sink;

  /** Where the current result goes; null until it is named. */
  private Path path;

  private ArrowIpcWriter writer;
  private int files;

  /** The least rows per record batch written, or 0 to write each batch as it comes. */
  private final int minBatchRows;

  /** The rows gathered for the next batch, when {@link #minBatchRows} is set; else null. */
  private VectorSchemaRoot gathered;

  ArrowOutput(Path output, boolean oneFile, List<String> columns, PrintStream out)
      throws IOException {
    this(output, oneFile, columns, out, 0, 0, ArrowMapping.defaults());
  }

  /**
   * @param maxBatchRows the most rows per record batch of a result, or 0 for one batch per result
   * @param minBatchRows the least rows per record batch written (results are gathered until they
   *     hold that many), or 0 to write each as it comes
   * @param mapping how CQL types map to Arrow's
   */
  ArrowOutput(
      Path output,
      boolean oneFile,
      List<String> columns,
      PrintStream out,
      int maxBatchRows,
      int minBatchRows,
      ArrowMapping mapping)
      throws IOException {
    this.output = output;
    this.oneFile = oneFile;
    this.out = out;
    this.minBatchRows = minBatchRows;
    if (oneFile) {
      path = output;
    } else {
      Files.createDirectories(output);
    }
    this.sink = new ArrowSink(allocator, mapping).reuseVectors(true).onBatch(this::accept);
    if (maxBatchRows > 0) {
      sink.maxBatchRows(maxBatchRows);
    }
    if (columns != null) {
      sink.selectColumnsByName(columns.toArray(new String[0]));
    }
  }

  /** The sink for the next result on {@code connection}, stream {@code stream}. */
  RowSink sinkFor(String connection, int stream, String query) {
    if (!oneFile) {
      path =
          output.resolve(
              String.format(
                  "%05d-%s-stream%d-%s.arrow",
                  files + 1,
                  slug(connection, 80),
                  stream,
                  query == null ? "unknown" : slug(query, QUERY_CHARS)));
    }
    return sink;
  }

  /** The result is complete (or failed): its file is finished, unless all go to one file. */
  void endResult() throws IOException {
    if (!oneFile) {
      finish();
    }
  }

  /** A batch of the sink: written, or gathered until {@link #minBatchRows} rows are. */
  private void accept(VectorSchemaRoot batch) {
    if (minBatchRows == 0) {
      write(batch);
      return;
    }
    if (gathered != null && !gathered.getSchema().equals(batch.getSchema())) {
      flushGathered();
    }
    if (gathered == null) {
      gathered = VectorSchemaRoot.create(batch.getSchema(), allocator);
      gathered.allocateNew();
    }
    VectorSchemaRootAppender.append(gathered, batch);
    if (gathered.getRowCount() >= minBatchRows) {
      flushGathered();
    }
  }

  /** Writes the gathered rows, if any, as one batch. */
  private void flushGathered() {
    VectorSchemaRoot g = gathered;
    if (g == null) {
      return;
    }
    gathered = null; // before writing: a new schema's file finishes the old one, which flushes
    try {
      if (g.getRowCount() > 0) {
        write(g);
      }
    } finally {
      g.close();
    }
  }

  private void write(VectorSchemaRoot batch) {
    try {
      if (writer != null && oneFile && !batch.getSchema().equals(writer.schema())) {
        finish();
        String name = output.getFileName().toString();
        path =
            output.resolveSibling(
                name.substring(0, name.length() - ".arrow".length())
                    + "-"
                    + (files + 1)
                    + ".arrow");
      }
      if (writer == null) {
        writer =
            ArrowIpcWriter.file(
                FileChannel.open(
                    path,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE));
        files++;
      }
      writer.accept(batch);
    } catch (IOException e) {
      throw new UncheckedIOException(path + ": " + e.getMessage(), e);
    }
  }

  private void finish() throws IOException {
    flushGathered();
    if (writer != null) {
      ArrowIpcWriter w = writer;
      writer = null;
      w.close();
      out.println(path + "\t" + w.rows() + " rows");
    }
  }

  /** Finishes the open file and frees the Arrow buffers. */
  @Override
  public void close() throws IOException {
    try {
      finish();
    } finally {
      if (gathered != null) {
        gathered.close();
        gathered = null;
      }
      sink.close();
      allocator.close();
    }
  }

  /** {@code text} with every run of characters other than letters, digits, '.' and '-' as '_'. */
  static String slug(String text, int max) {
    String s = text.replaceAll("[^A-Za-z0-9.-]+", "_");
    s = s.replaceAll("^_+|_+$", "");
    return s.length() > max ? s.substring(0, max) : s;
  }
}
