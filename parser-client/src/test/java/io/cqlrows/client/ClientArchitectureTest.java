package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.cqlrows.testing.Architecture;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** parser-client's shape: no package cycles, a listed public API. */
class ClientArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importModule() {
    classes = Architecture.mainClasses("io.cqlrows.client");
  }

  @Test
  void importsTheWholeModule() {
    assertTrue(classes.contain("io.cqlrows.client.CqlClient"));
  }

  @Test
  void packagesAreFreeOfCycles() {
    Architecture.noPackageCycles().check(classes);
  }

  @Test
  void everyPublicTypeIsListedInTheApiPage() {
    Set<String> listed = Architecture.listedTypes();
    assertEquals(Set.of(), Architecture.unlisted(classes, listed), "public, not in docs/api.md");
    assertEquals(
        Set.of(),
        Architecture.staleListings(classes, listed, "io.cqlrows.client"),
        "in docs/api.md, not a public top-level type");
  }
}
