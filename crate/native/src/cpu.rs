//! Which of the official crate's kernels this CPU can run.

/// Space-separated CPU features that select the official kernels, best first:
/// "avx512f avx512vl avx2 sse4.1 sse2" on x86 (AVX-512 needs both of its
/// first two), "neon" on aarch64 (upstream assumes it there), "" elsewhere
/// (portable code).
pub fn cpu_features() -> String {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        let mut found = Vec::new();
        if std::arch::is_x86_feature_detected!("avx512f") {
            found.push("avx512f");
        }
        if std::arch::is_x86_feature_detected!("avx512vl") {
            found.push("avx512vl");
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            found.push("avx2");
        }
        if std::arch::is_x86_feature_detected!("sse4.1") {
            found.push("sse4.1");
        }
        if std::arch::is_x86_feature_detected!("sse2") {
            found.push("sse2");
        }
        found.join(" ")
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    {
        "neon".to_owned()
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little"))))]
    {
        String::new()
    }
}
