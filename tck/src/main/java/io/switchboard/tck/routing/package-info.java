/**
 * The contract every router journal passes: {@link io.switchboard.tck.routing.RouterContract} (a
 * router on the journal behaves across restarts as one that never stopped) and {@link
 * io.switchboard.tck.routing.RouterJournalContract} (what the journal stores loads back as the
 * reference journal holds it). A store module's test extends each and says how to make an empty
 * store ({@link io.switchboard.tck.routing.JournalStore}).
 */
@NullMarked
package io.switchboard.tck.routing;

import org.jspecify.annotations.NullMarked;
