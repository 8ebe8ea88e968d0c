package io.switchboard.routing;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Live contact figures for one requirement group or for the whole router. The rates cover the
 * contacts that left the line for good (answered, abandoned or timed out) within the sliding window
 * that ends now; they are empty while there are none.
 *
 * @param waiting contacts queued now (not those on offer)
 * @param longestWait how long the oldest queued contact has existed; zero when none waits
 * @param answered contacts accepted by an agent within the window
 * @param abandoned contacts abandoned before being answered, within the window
 * @param timedOut contacts that reached their maximum wait, within the window
 * @param serviceLevel share (0..1) of the window's contacts answered within the threshold
 * @param averageSpeedOfAnswer mean time from arrival to acceptance of the window's answered ones
 * @param abandonmentRate share (0..1) of the window's contacts that were abandoned
 */
public record ContactStats(
    int waiting,
    Duration longestWait,
    long answered,
    long abandoned,
    long timedOut,
    OptionalDouble serviceLevel,
    Optional<Duration> averageSpeedOfAnswer,
    OptionalDouble abandonmentRate) {}
