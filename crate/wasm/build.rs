//! One name for "the SIMD build": `blake3_kit_simd`, set when the `simd`
//! feature is on and the target is wasm32 with simd128 enabled (both flavours
//! are built by scripts/build-wasm.mjs; only one has all three). Code says
//! `#[cfg(blake3_kit_simd)]` instead of spelling the condition out, as the
//! official crate's build.rs does with `blake3_sse41_ffi` and the like.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(blake3_kit_simd)");
    println!("cargo::rerun-if-changed=build.rs");
    let feature = std::env::var_os("CARGO_FEATURE_SIMD").is_some();
    let wasm32 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    let simd128 = std::env::var("CARGO_CFG_TARGET_FEATURE").is_ok_and(|features| features.split(',').any(|f| f == "simd128"));
    if feature && wasm32 && simd128 {
        println!("cargo::rustc-cfg=blake3_kit_simd");
    }
}
