use frozen_roaring::{FrozenBitmap, Writer};
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut w = Writer::new();
    let bufs: Vec<Vec<u8>> = files
        .iter()
        .map(|f| {
            let t = std::fs::read_to_string(f).unwrap();
            let v: Vec<u32> = t
                .trim()
                .split(',')
                .map(|x| x.trim().parse().unwrap())
                .collect();
            let mut o = Vec::new();
            w.write_sorted(v, &mut o).unwrap();
            o
        })
        .collect();
    let views: Vec<_> = bufs
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let mut s = [0u32; 3];
    for v in &views {
        let st = v.statistics();
        s[0] += st.array_containers;
        s[1] += st.bitset_containers;
        s[2] += st.run_containers;
    }
    eprintln!("kinds a/b/r {:?}", s);
    let mut t = 0;
    for _ in 0..2000 {
        t += views
            .windows(2)
            .map(|w| w[0].intersection_len(&w[1]))
            .sum::<u64>();
    }
    println!("{t}");
}
