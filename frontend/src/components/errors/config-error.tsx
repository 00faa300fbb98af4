/** Shown instead of the app when it cannot start (e.g. no anon key configured). */
export function ConfigErrorPage({ message }: { message: string }) {
  return (
    <main className="flex min-h-dvh items-center justify-center p-6">
      <div role="alert" className="max-w-lg rounded-2xl border border-red-200 bg-white p-6 shadow-sm">
        <h1 className="text-lg font-semibold text-red-700">Labelbase cannot start</h1>
        <p className="mt-2 text-sm text-zinc-700">{message}</p>
      </div>
    </main>
  )
}
