package io.cqlrows.client.live;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.internal.core.loadbalancing.DcInferringLoadBalancingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The Apache Cassandra Java driver 4.19.2 of the live tests: the reference our decoding is compared
 * with, and the tool that writes the data. Sessions talk to {@link CassandraServer} with the
 * driver's default protocol negotiation (v5 with Cassandra 5.0), no compression, one connection,
 * schema metadata and token map off (faster DDL), and a 60 s request timeout.
 *
 * <p>Stateless; each session is owned by whoever opened it and closed in {@code @AfterAll}.
 */
final class LiveDriver {
  /** Requests in flight at most while loading rows. */
  static final int MAX_IN_FLIGHT = 32;

  private LiveDriver() {}

  /** A new session; the local datacenter is inferred from the contact point. */
  static CqlSession open(CassandraServer server) {
    DriverConfigLoader config =
        DriverConfigLoader.programmaticBuilder()
            .withClass(
                DefaultDriverOption.LOAD_BALANCING_POLICY_CLASS,
                DcInferringLoadBalancingPolicy.class)
            .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
            .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(30))
            .withDuration(
                DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(30))
            .withInt(DefaultDriverOption.REQUEST_PAGE_SIZE, 5000)
            .withInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE, 1)
            .withBoolean(DefaultDriverOption.METADATA_SCHEMA_ENABLED, false)
            .withBoolean(DefaultDriverOption.METADATA_TOKEN_MAP_ENABLED, false)
            .build();
    return CqlSession.builder().addContactPoint(server.address()).withConfigLoader(config).build();
  }

  /**
   * Executes {@code count} statements with at most {@link #MAX_IN_FLIGHT} in flight; waits for all
   * of them and rethrows the first failure.
   *
   * @param statement the {@code i}-th statement, 0 to count - 1
   */
  static void executeAll(CqlSession session, int count, IntFunction<Statement<?>> statement)
      throws InterruptedException {
    Semaphore permits = new Semaphore(MAX_IN_FLIGHT);
    List<CompletableFuture<AsyncResultSet>> futures = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      permits.acquire();
      CompletionStage<AsyncResultSet> stage = session.executeAsync(statement.apply(i));
      CompletableFuture<AsyncResultSet> future = stage.toCompletableFuture();
      future.whenComplete((rs, error) -> permits.release());
      futures.add(future);
      if (future.isCompletedExceptionally()) {
        break;
      }
    }
    try {
      CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
          .get(10, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Loading rows failed: " + e.getMessage(), e);
    }
  }
}
