package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "Lazy rows" example of docs/parser.md is real code: compiled from the page ({@link
 * ReadmeBlocks}) and run on a page of {@code id int, embedding vector<float, 3>} in a pooled
 * buffer. It returns the ids and the matrix of the rows, and leaves the body as it found it: its
 * page was released when the example's block ended.
 */
class LazyRowsExampleTest {
  @TempDir static Path work;
  private static Class<?> example;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    example = ReadmeBlocks.compile(ReadmeBlocks.source("docs/parser.md", "lazy-rows"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(example);
  }

  @Test
  void readsTheIdsAndTheEmbeddingsAndReleasesThePage() throws Throwable {
    ByteBuf heap =
        RowsBodies.rows()
            .column("id", RowsBodies.opt(0x09))
            .column("embedding", RowsBodies.vector("FloatType", 3))
            .column("note", RowsBodies.opt(0x0D))
            .row("00000005", "3f8000004000000040400000", "6869")
            .row("00000009", "bf800000c0000000c0400000", null)
            .build();
    ByteBuf body = PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(heap);
    heap.release();
    try {
      Method embeddings =
          example.getMethod("embeddings", ResultReader.class, ByteBuf.class, int[].class);
      int[] ids = new int[2];
      float[] matrix;
      try {
        matrix = (float[]) embeddings.invoke(null, new ResultReader(4), body, ids);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      assertArrayEquals(new int[] {5, 9}, ids);
      assertArrayEquals(new float[] {1, 2, 3, -1, -2, -3}, matrix);
      assertEquals(1, body.refCnt(), "the page released its reference");
      assertEquals(0, body.readerIndex(), "the body is borrowed: reader index");
    } finally {
      body.release();
    }
  }
}
