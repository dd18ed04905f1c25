package io.cqlrows.client.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * Client-side TLS for tests, on Netty 4.1 and 4.2 alike: JDK-provider client contexts from PEM
 * files, and {@link SslHandler}s that verify the server's host name (endpoint identification {@code
 * HTTPS}, set on the engine: Netty 4.2's client contexts do that by default, 4.1's do not).
 * Stateless; thread-safe.
 */
public final class TlsClients {
  private TlsClients() {}

  /**
   * A JDK-provider client context trusting the certificates of {@code trustedPem}, presenting
   * {@code identity} (chain and key PEM files) when not null, limited to {@code protocols} (e.g.
   * {@code "TLSv1.2"}) when any are given.
   */
  public static SslContext context(
      Path trustedPem, Path certificateChain, Path privateKey, String... protocols)
      throws SSLException {
    SslContextBuilder builder =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .trustManager(trustedPem.toFile());
    if (certificateChain != null) {
      builder.keyManager(certificateChain.toFile(), privateKey.toFile());
    }
    if (protocols.length > 0) {
      builder.protocols(protocols);
    }
    return builder.build();
  }

  /**
   * A handler of {@code context} for a connection to {@code peerHost}:{@code port}, verifying that
   * the server's certificate names {@code peerHost} (the name sent as SNI too, when it is not an IP
   * address). The caller owns it and adds it to a pipeline.
   */
  public static SslHandler handler(
      SslContext context, ByteBufAllocator alloc, String peerHost, int port) {
    SslHandler handler = context.newHandler(alloc, peerHost, port);
    SSLEngine engine = handler.engine();
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return handler;
  }

  /**
   * A pipeline customizer (e.g. for {@code CqlClient.connect}) adding {@link #handler} first, as
   * {@code "tls"}.
   */
  public static Consumer<ChannelPipeline> first(SslContext context, String peerHost, int port) {
    return p -> p.addFirst("tls", handler(context, p.channel().alloc(), peerHost, port));
  }
}
