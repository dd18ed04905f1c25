package io.cqlrows.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.cqlrows.testing.archfixture.left.Left;
import io.cqlrows.testing.archfixture.right.Right;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The architecture rules fail on a class set built to break them: two packages that import each
 * other, a dependency outside the JDK and netty-buffer, public types {@code docs/api.md} does not
 * list. Without this, a rule that can never fail would pass the module tests.
 */
class ArchitectureRulesTest {
  private final JavaClasses bad = new ClassFileImporter().importClasses(Left.class, Right.class);

  @Test
  void aPackageCycleFailsTheCycleRule() {
    assertTrue(Architecture.noPackageCycles().evaluate(bad).hasViolation());
    assertThrows(AssertionError.class, () -> Architecture.noPackageCycles().check(bad));
  }

  @Test
  void oneHalfOfTheCycleAloneIsNoCycle() {
    JavaClasses left = new ClassFileImporter().importClasses(Left.class);
    Architecture.noPackageCycles().check(left);
  }

  @Test
  void aDependencyBeyondTheJdkAndNettyBufferFailsTheDependencyRule() {
    ArchRule rule = Architecture.onlyTheJdkAndNettyBuffer("io.cqlrows.testing.archfixture");
    assertTrue(rule.evaluate(bad).hasViolation());
    assertThrows(AssertionError.class, () -> rule.check(bad));
  }

  @Test
  void theDependencyRulePassesWithoutTheForeignDependency() {
    JavaClasses left = new ClassFileImporter().importClasses(Left.class);
    Architecture.onlyTheJdkAndNettyBuffer("io.cqlrows.testing.archfixture").check(left);
  }

  @Test
  void unlistedPublicTypesAreReported() {
    assertEquals(
        Set.of(Left.class.getName(), Right.class.getName()),
        Architecture.unlisted(bad, Architecture.listedTypes()));
    assertEquals(
        Set.of(), Architecture.unlisted(bad, Set.of(Left.class.getName(), Right.class.getName())));
  }

  @Test
  void listingsOfMissingTypesAreReported() {
    String gone = "io.cqlrows.testing.archfixture.left.Gone";
    assertEquals(
        Set.of(gone),
        Architecture.staleListings(
            bad,
            Set.of(Left.class.getName(), gone, "io.cqlrows.core.ResultReader"),
            "io.cqlrows.testing.archfixture"));
  }
}
