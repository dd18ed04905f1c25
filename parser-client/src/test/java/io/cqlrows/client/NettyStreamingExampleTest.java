package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.ReadmeBlocks;
import io.cqlrows.netty.frame.Compression;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/netty.md's streaming example is real code: the {@code java} block between the {@code
 * streaming:begin} and {@code streaming:end} markers, compiled ({@link ReadmeBlocks}) and run
 * against {@link FakeCqlServer} speaking v5 with LZ4 segments. The server's {@code VECTORS 1000}
 * result (about 520 KB, several segments) is held back after its first 140,000 bytes: rows must
 * reach the example's callback before the rest is sent, and once it is, every row must have come
 * once, in order, with its vector.
 */
class NettyStreamingExampleTest {
  private static final int ROWS = 1000;

  /** More than one full segment (131,071 bytes of payload), far less than the result. */
  private static final int SENT_FIRST = 140_000;

  @TempDir static Path work;
  private static Class<?> streamRows;

  private EventLoopGroup group;
  private FakeCqlServer server;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    streamRows = ReadmeBlocks.compile(ReadmeBlocks.source("docs/netty.md", "streaming"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(streamRows);
  }

  @BeforeEach
  void startServer() throws InterruptedException {
    group = EventLoops.nio(2);
    server = new FakeCqlServer(group, 5, Compression.LZ4);
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.releaseOutput();
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @Test
  void rowsArriveWhileTheResultIsStillComingAndAllOfThemInOrder() throws Exception {
    List<Integer> ids = Collections.synchronizedList(new ArrayList<>());
    List<float[]> vectors = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch firstRow = new CountDownLatch(1);
    server.holdOutputAfter(SENT_FIRST);
    CompletableFuture<?> result =
        run(
            "VECTORS " + ROWS,
            (id, vector) -> {
              ids.add(id);
              vectors.add(vector.clone()); // the example reuses its array
              firstRow.countDown();
            });

    assertTrue(firstRow.await(10, TimeUnit.SECONDS), "a row before the rest of the result");
    int early = ids.size();
    assertFalse(result.isDone(), "the result is not complete: the server holds most of it");
    assertTrue(early < ROWS, early + " rows before the rest was sent");

    server.releaseOutput();
    assertEquals(ROWS, result.get(10, TimeUnit.SECONDS), "the row count");
    assertEquals(ROWS, ids.size());
    for (int i = 0; i < ROWS; i++) {
      assertEquals(i, ids.get(i), "row " + i);
      float[] expected = new float[CannedResponses.DIMENSION];
      for (int j = 0; j < expected.length; j++) {
        expected[j] = CannedResponses.vectorElement(i, j);
      }
      assertArrayEquals(expected, vectors.get(i), "the vector of row " + i);
    }
  }

  private CompletableFuture<?> run(String query, BiConsumer<Integer, float[]> onRow)
      throws Exception {
    Object app =
        streamRows.getConstructor(String.class, BiConsumer.class).newInstance(query, onRow);
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler((ChannelHandler) app)
            .connect("127.0.0.1", server.port())
            .sync()
            .channel();
    CompletableFuture<?> result = (CompletableFuture<?>) streamRows.getField("result").get(app);
    result.whenComplete((r, e) -> channel.close());
    return result;
  }
}
