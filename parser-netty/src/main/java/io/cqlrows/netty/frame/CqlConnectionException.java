package io.cqlrows.netty.frame;

import io.cqlrows.core.CqlException;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.SSLException;

/**
 * A connection that could not be made or did not last, or a request on it that got no answer in
 * time: what happened ({@link #reason()}), with which server ({@link #address()}), and for which
 * request ({@link #streamId()}, -1 for the connection as a whole). Bytes the decoders cannot accept
 * are {@link CqlFrameException}s instead, and errors the server answers are {@link
 * CqlServerError}s.
 *
 * <p>The message is derived from the fields, for example {@code 127.0.0.1:9042: stream 7: no
 * response within 2000 ms} or {@code 127.0.0.1:9142: TLS handshake failed: the server's certificate
 * is not trusted (PKIX path building failed: ...)}. Callers and tests should look at the fields.
 * Immutable.
 */
public final class CqlConnectionException extends CqlException {
  private static final long serialVersionUID = 1L;
  private static final int MAX_CAUSES = 32;

  /** What happened. */
  public enum Reason implements CqlException.Reason {
    /** Nothing listens at the address: the connection was refused. */
    REFUSED,
    /** The host name does not resolve. */
    UNKNOWN_HOST,
    /** The connection (TCP, TLS and the CQL handshake) was not ready within its deadline. */
    CONNECT_TIMEOUT,
    /** The server's certificate does not chain to a trusted certificate authority. */
    TLS_UNTRUSTED,
    /** The server's certificate is not for the host name (or address) the client checks. */
    TLS_HOST_MISMATCH,
    /** The server's certificate has expired, or is not valid yet. */
    TLS_EXPIRED,
    /** The server answered the TLS handshake with bytes that are not TLS. */
    TLS_NOT_TLS,
    /** The server requires a client certificate, and none (or none it accepts) was sent. */
    TLS_CLIENT_CERT_REQUIRED,
    /** The TLS handshake failed for another reason (the cause says which). */
    TLS_FAILED,
    /** The client closed the connection while the request was pending. */
    CLOSED_BY_CLIENT,
    /** The server closed the connection (an orderly close: FIN). */
    CLOSED_BY_SERVER,
    /** The connection was reset (RST): the server's process died, or a middlebox cut it. */
    RESET,
    /** Another socket error ended the connection (the cause says which). */
    IO_ERROR,
    /** The request got no response within its deadline; its stream id stays orphaned. */
    REQUEST_TIMEOUT,
    /**
     * More requests than the connection allows timed out or were cancelled while their answers may
     * still come: the connection is treated as broken and closed.
     */
    TOO_MANY_ORPHANS,
    /** All 32,768 stream ids are in use by requests in flight or orphaned. */
    STREAMS_EXHAUSTED
  }

  private final Reason reason;
  private final String address;
  private final int streamId;
  private final String detail;

  /**
   * An error of one connection, or of one request on it.
   *
   * @param reason what happened
   * @param address the server, {@code host:port}, or {@code null} when unknown
   * @param streamId the request's stream id, or -1 for the connection as a whole
   * @param detail what was expected and found, or {@code null} for the reason alone
   * @param cause the underlying error, or {@code null}
   */
  public CqlConnectionException(
      Reason reason, String address, int streamId, String detail, Throwable cause) {
    super(null, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.address = address;
    this.streamId = streamId;
    this.detail = detail;
  }

  /**
   * A server's socket address as these exceptions name it: {@code host:port} ({@code [v6]:port} for
   * an IPv6 literal), the host as given when it was a name; the address's own string form when it
   * is not an internet socket address; {@code null} for {@code null}.
   */
  public static String address(SocketAddress address) {
    if (address instanceof InetSocketAddress a) {
      String host = a.getHostString();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }
    return address == null ? null : address.toString();
  }

  /** What happened. */
  @Override
  public Reason reason() {
    return reason;
  }

  /** The server, {@code host:port}, or {@code null} when unknown. */
  public String address() {
    return address;
  }

  /** The stream id of the request, or -1 when the whole connection failed. */
  public int streamId() {
    return streamId;
  }

  /** What was expected and found, without the location; may be {@code null}. */
  public String detail() {
    return detail;
  }

  @Override
  public String getMessage() {
    StringBuilder sb = new StringBuilder(96);
    if (address != null) {
      sb.append(address).append(": ");
    }
    if (streamId >= 0) {
      sb.append("stream ").append(streamId).append(": ");
    }
    sb.append(detail != null ? detail : reason.name().toLowerCase(Locale.ROOT).replace('_', ' '));
    return sb.toString();
  }

  /**
   * The connection error for {@code cause}, an exception of connecting, of the socket, or of the
   * TLS layer (a failed handshake, or an alert after it), with the reason read from its type and
   * cause chain; {@code cause} itself when it is one already; {@code null} when it is none of
   * those.
   *
   * @param address the server, {@code host:port}, or {@code null}
   */
  public static CqlConnectionException from(Throwable cause, String address) {
    if (cause instanceof CqlConnectionException e) {
      return e;
    }
    Throwable tls = find(cause, SSLException.class);
    if (tls == null) {
      tls = find(cause, NotSslRecordException.class);
    }
    if (tls == null && cause instanceof SslHandshakeTimeoutException) {
      tls = cause;
    }
    if (tls != null) {
      return tlsError(tls, address);
    }
    if (cause instanceof ConnectTimeoutException) {
      return new CqlConnectionException(
          Reason.CONNECT_TIMEOUT, address, -1, "could not connect in time", cause);
    }
    if (cause instanceof ConnectException) {
      return new CqlConnectionException(Reason.REFUSED, address, -1, "connection refused", cause);
    }
    if (cause instanceof UnknownHostException) {
      return new CqlConnectionException(Reason.UNKNOWN_HOST, address, -1, "unknown host", cause);
    }
    if (cause instanceof IOException) {
      String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("reset")) {
        return new CqlConnectionException(Reason.RESET, address, -1, "connection reset", cause);
      }
      if (message.contains("broken pipe")) { // a write after the server closed its side
        return new CqlConnectionException(
            Reason.CLOSED_BY_SERVER,
            address,
            -1,
            "connection closed by the server (broken pipe)",
            cause);
      }
      return new CqlConnectionException(Reason.IO_ERROR, address, -1, oneLine(cause), cause);
    }
    return null;
  }

  /** The reason a TLS handshake (or the session after it) failed, from its cause chain. */
  private static CqlConnectionException tlsError(Throwable tls, String address) {
    Reason reason;
    String what;
    if (find(tls, SslHandshakeTimeoutException.class) != null) {
      reason = Reason.CONNECT_TIMEOUT;
      what = "TLS handshake not done in time";
    } else if (find(tls, NotSslRecordException.class) != null) {
      reason = Reason.TLS_NOT_TLS;
      what = "TLS handshake failed: the server does not speak TLS";
    } else if (find(tls, CertificateExpiredException.class) != null
        || find(tls, CertificateNotYetValidException.class) != null
        || expired(find(tls, CertPathValidatorException.class))) {
      reason = Reason.TLS_EXPIRED;
      what = "TLS handshake failed: the server's certificate has expired or is not valid yet";
    } else if (find(tls, CertPathBuilderException.class) != null
        || find(tls, CertPathValidatorException.class) != null) {
      reason = Reason.TLS_UNTRUSTED;
      what = "TLS handshake failed: the server's certificate is not trusted";
    } else if (hostMismatch(tls)) {
      reason = Reason.TLS_HOST_MISMATCH;
      what = "TLS handshake failed: the server's certificate is for another host";
    } else if (clientCertificateRefused(tls)) {
      reason = Reason.TLS_CLIENT_CERT_REQUIRED;
      what = "TLS handshake failed: the server requires a client certificate it accepts";
    } else {
      reason = Reason.TLS_FAILED;
      what = "TLS handshake failed";
    }
    return new CqlConnectionException(
        reason, address, -1, what + " (" + oneLine(root(tls)) + ")", tls);
  }

  private static boolean expired(CertPathValidatorException e) {
    return e != null
        && (e.getReason() == CertPathValidatorException.BasicReason.EXPIRED
            || e.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID);
  }

  /**
   * The JDK's endpoint identification fails with a plain {@link CertificateException} whose message
   * says no name or address matched.
   */
  private static boolean hostMismatch(Throwable tls) {
    for (Throwable c : chain(tls)) {
      if (c instanceof CertificateException) {
        String m = String.valueOf(c.getMessage());
        if (m.startsWith("No subject alternative") || m.startsWith("No name matching")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The server's alert for a missing or refused client certificate (TLS 1.3 or 1.2). */
  private static boolean clientCertificateRefused(Throwable tls) {
    for (Throwable c : chain(tls)) {
      String m = String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT);
      if (m.contains("certificate_required")
          || m.contains("bad_certificate")
          || m.contains("certificate required")
          || m.contains("bad certificate")) {
        return true;
      }
    }
    return false;
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c : chain(t)) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  private static Throwable root(Throwable t) {
    List<Throwable> chain = chain(t);
    return chain.get(chain.size() - 1);
  }

  /** {@code t} and its causes, at most {@value #MAX_CAUSES} (a chain may loop). */
  private static List<Throwable> chain(Throwable t) {
    List<Throwable> chain = new ArrayList<>(4);
    for (Throwable c = t;
        c != null && chain.size() < MAX_CAUSES && !chain.contains(c);
        c = c.getCause()) {
      chain.add(c);
    }
    return chain;
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank()
        ? e.getClass().getSimpleName()
        : m.replaceAll("\\s*[\\r\\n]+\\s*", " ");
  }
}
