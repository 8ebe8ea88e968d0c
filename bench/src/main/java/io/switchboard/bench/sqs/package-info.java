@NullMarked
package io.switchboard.bench.sqs;

import org.jspecify.annotations.NullMarked;
