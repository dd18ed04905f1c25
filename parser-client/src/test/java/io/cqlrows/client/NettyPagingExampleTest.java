package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.ReadmeBlocks;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.request.DecodedRequest;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/netty.md's paging loop is real code: the {@code java} block between the {@code paging:begin}
 * and {@code paging:end} markers, compiled ({@link ReadmeBlocks}) and run against {@link
 * FakeCqlServer} speaking v5 with LZ4 segments, whose {@code PAGES n} query answers ids 0 to n - 1
 * in pages of the requested size. The loop must return every row of every page once, in order,
 * having asked for each page with the paging state of the one before.
 */
class NettyPagingExampleTest {
  @TempDir static Path work;
  private static Class<?> readAllPages;

  private EventLoopGroup group;
  private FakeCqlServer server;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    readAllPages = ReadmeBlocks.compile(ReadmeBlocks.source("docs/netty.md", "paging"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(readAllPages);
  }

  @BeforeEach
  void startServer() throws InterruptedException {
    group = EventLoops.nio(2);
    server = new FakeCqlServer(group, 5, Compression.LZ4);
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @Test
  void readsEveryRowOfEveryPageInOrder() throws Exception {
    RowsCollector rows = (RowsCollector) run("PAGES 250").get(10, TimeUnit.SECONDS);
    assertEquals(range(0, 250), ids(rows.rows()));

    List<DecodedRequest> pages = queries();
    assertEquals(3, pages.size(), "100 + 100 + 50 rows");
    List<String> pagingStates = new ArrayList<>();
    for (DecodedRequest page : pages) {
      assertEquals("PAGES 250", page.query(), "the same query each time");
      assertEquals(100, page.pageSize());
      pagingStates.add(page.pagingState());
    }
    List<String> expected = new ArrayList<>();
    expected.add(null); // the first page
    expected.add("00000064"); // where page 1 ended: id 100
    expected.add("000000c8"); // id 200
    assertEquals(expected, pagingStates);
  }

  @Test
  void aResultOfOnePageIsOneRequest() throws Exception {
    RowsCollector rows = (RowsCollector) run("PAGES 100").get(10, TimeUnit.SECONDS);
    assertEquals(range(0, 100), ids(rows.rows()));
    assertEquals(1, queries().size());
  }

  @Test
  void aResultWithoutRowsEndsTheLoop() throws Exception {
    RowsCollector rows = (RowsCollector) run("PAGES 0").get(10, TimeUnit.SECONDS);
    assertTrue(rows.rows().isEmpty());
    assertEquals(1, queries().size());
  }

  @Test
  void anErrorResponseFailsTheResult() throws Exception {
    CompletableFuture<?> result = run("FAIL this one");
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> result.get(10, TimeUnit.SECONDS));
    CqlServerError error = assertInstanceOf(CqlServerError.class, e.getCause());
    assertEquals(CqlServerError.INVALID, error.code());
  }

  private List<DecodedRequest> queries() {
    return server.requests.stream()
        .filter(r -> r.opcode() == Opcode.QUERY)
        .collect(Collectors.toList());
  }

  private static List<Integer> ids(List<Row> rows) {
    return rows.stream().map(r -> r.getInt("id")).collect(Collectors.toList());
  }

  private static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().collect(Collectors.toList());
  }

  private CompletableFuture<?> run(String query) throws Exception {
    Object app = readAllPages.getConstructor(String.class).newInstance(query);
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler((ChannelHandler) app)
            .connect("127.0.0.1", server.port())
            .sync()
            .channel();
    CompletableFuture<?> result = (CompletableFuture<?>) readAllPages.getField("result").get(app);
    result.whenComplete((r, e) -> channel.close());
    return result;
  }
}
