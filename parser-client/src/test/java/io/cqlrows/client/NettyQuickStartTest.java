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
import io.cqlrows.netty.request.DecodedRequest;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Netty example is real code: the {@code java} block between the {@code netty:begin}
 * and {@code netty:end} markers, compiled ({@link ReadmeBlocks}) and run against {@link
 * FakeCqlServer} speaking v5 with LZ4 segments. It imports at most five cqlrows types and names the
 * compression once.
 */
class NettyQuickStartTest {
  @TempDir static Path work;
  private static String source;
  private static Class<?> selectOnce;

  private EventLoopGroup group;
  private FakeCqlServer server;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    source = ReadmeBlocks.source("netty");
    selectOnce = ReadmeBlocks.compile(source, work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(selectOnce);
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
  void importsAtMostFiveCqlrowsTypesAndNamesTheCompressionOnce() {
    List<String> imports = ReadmeBlocks.imports(source, "io.cqlrows.");
    assertTrue(imports.size() <= 5, "cqlrows imports: " + imports);
    assertEquals(1, source.split("Compression\\.", -1).length - 1, "Compression.X in the source");
  }

  @Test
  void runsTheQueryAndCompletesWithItsRows() throws Exception {
    String query = "SELECT stream, query FROM system.local";
    CompletableFuture<?> result = run(query);
    RowsCollector rows = (RowsCollector) result.get(10, TimeUnit.SECONDS);
    List<Row> got = rows.rows();
    assertEquals(1, got.size());
    List<DecodedRequest> requests = server.requests;
    assertEquals("lz4", requests.get(0).options().get("COMPRESSION"), "STARTUP asked for LZ4");
    DecodedRequest sent = requests.get(requests.size() - 1);
    assertEquals(sent.streamId(), got.get(0).getInt("stream"), "the stream id the pipeline chose");
    assertEquals(query, got.get(0).getString("query"));
  }

  @Test
  void anErrorResponseFailsTheResult() throws Exception {
    CompletableFuture<?> result = run("FAIL this one");
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> result.get(10, TimeUnit.SECONDS));
    CqlServerError error = assertInstanceOf(CqlServerError.class, e.getCause());
    assertEquals(CqlServerError.INVALID, error.code());
  }

  private CompletableFuture<?> run(String query) throws Exception {
    Object app = selectOnce.getConstructor(String.class).newInstance(query);
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler((ChannelHandler) app)
            .connect("127.0.0.1", server.port())
            .sync()
            .channel();
    CompletableFuture<?> result = (CompletableFuture<?>) selectOnce.getField("result").get(app);
    result.whenComplete((r, e) -> channel.close());
    return result;
  }
}
